// GET /v1/models and GET /v1/models/{id}: the catalog, no key needed. The list is served
// from JSON serialized once at start. @google/genai 3 calls these very paths for models.list
// and models.get (its default API version is v1): a request carrying its x-goog-api-client
// header gets Gemini's shape, as on /v1beta/models (routes/gemini.ts).
import { listGeminiModels, retrieveGeminiModel } from './gemini.js';
import type { Context, Handler } from '../state.js';

const fromGenaiSdk = (ctx: Context) => ctx.get('x-goog-api-client') !== '';

export const listModels: Handler = (ctx, services) => {
  if (fromGenaiSdk(ctx)) return listGeminiModels(ctx, services);
  ctx.type = 'application/json';
  ctx.body = services.catalog.publicListJson;
};

export const retrieveModel: Handler = (ctx, services) => {
  if (fromGenaiSdk(ctx)) return retrieveGeminiModel(ctx, services);
  // Ids contain "/" ("openai/gpt-4o-mini"): the SDK sends it encoded or not, both land here.
  const model = services.catalog.resolve(ctx.params.model!);
  ctx.body = model.publicObject;
};
