// GET /v1/models and GET /v1/models/{id}: the catalog, no key needed. The list is served
// from JSON serialized once at start.
import type { Handler } from '../state.js';

export const listModels: Handler = (ctx, services) => {
  ctx.type = 'application/json';
  ctx.body = services.catalog.publicListJson;
};

export const retrieveModel: Handler = (ctx, services) => {
  // Ids contain "/" ("openai/gpt-4o-mini"): the SDK sends it encoded or not, both land here.
  const model = services.catalog.resolve(ctx.params.model!);
  ctx.body = model.publicObject;
};
