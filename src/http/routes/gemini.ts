// The Gemini API routes (@google/genai with only its base URL and key changed; docs/http-api.md,
// "Gemini API"): POST /v1beta/models/{model}:generateContent, :streamGenerateContent (?alt=sse)
// and :countTokens, GET /v1beta/models and /v1beta/models/{model}. The gateway's model ids hold
// a slash (`openai/chat`): the SDK puts them in the path as they are (`models/openai/chat:…`),
// and the routes read everything between `models/` and the last `:action` as the model.
//
// Google answers a request it refuses for its content with 400 INVALID_ARGUMENT; the gateway's
// 422 (validation, a capability the model lacks) is 400 on these routes, with the same message
// naming the field (the error body is src/dialects/gemini/error.ts).
import type { Dialect } from '../../dialects/types.js';
import { decodeCountTokensRequest, encodeCountTokens, generateContentDialect } from '../../dialects/gemini/index.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { toGatewayError } from '../../errors/to-gateway-error.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import { estimateInputTokens } from '../../model/token-estimate.js';
import { resolveChatModel } from '../../pipeline/chat.js';
import type { Context, Handler } from '../state.js';
import { chatHandler } from './chat.js';

/** The body as the dialect reads it: the path's model in the REST request's own `model` field. */
function withPathModel(ctx: Context): unknown {
  const body: unknown = ctx.request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body; // refused by the schema, as it is
  return { ...body, model: ctx.params.model };
}

/** A 422 of the gateway is Google's 400 INVALID_ARGUMENT on these routes. */
async function withGoogleStatuses(run: () => Promise<void> | void): Promise<void> {
  try {
    await run();
  } catch (error) {
    const refusal = toGatewayError(error, 'http');
    if (refusal?.status !== 422) throw error;
    throw new GatewayError(refusal.code, refusal.message, { ...refusal.options, status: 400 });
  }
}

/** POST …:generateContent and …:streamGenerateContent: the chat pipeline with the route's dialect. */
export function generateContent(dialect: Dialect, options: { stream: boolean }): Handler {
  const handle = chatHandler(dialect);
  return (ctx, services) =>
    withGoogleStatuses(() => {
      // Without alt=sse Google streams one JSON array; the SDK always asks for SSE, the only form served.
      if (options.stream && ctx.query.alt !== 'sse') {
        throw new GatewayError('invalid_request', 'streamGenerateContent is served as server-sent events only: add ?alt=sse to the URL.', { status: 400, param: 'alt' });
      }
      ctx.request.body = withPathModel(ctx) as typeof ctx.request.body;
      return handle(ctx, services);
    });
}

/** POST …:countTokens: counted by the gateway, nothing held or charged (as /v1/messages/count_tokens). */
export const countGeminiTokens: Handler = (ctx, services) =>
  withGoogleStatuses(() => {
    const body = withPathModel(ctx);
    const request = decodeCountTokensRequest(body);
    const { model } = resolveChatModel(services.catalog, generateContentDialect, request, ctx.state.apiKey!, body);
    ctx.state.model = model.id;
    ctx.body = encodeCountTokens(estimateInputTokens(request));
  });

const servesChat = (model: CatalogModel) => model.type === 'text' || model.type === 'search';

/** A catalog model as a Gemini `Model`; chat models list the methods these routes serve. */
function geminiModel(model: CatalogModel) {
  const { config } = model;
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '1',
    displayName: config.name,
    ...(config.description ? { description: config.description } : {}),
    ...(config.capabilities.context_window ? { inputTokenLimit: config.capabilities.context_window } : {}),
    ...(config.capabilities.max_output_tokens ? { outputTokenLimit: config.capabilities.max_output_tokens } : {}),
    supportedGenerationMethods: servesChat(model) ? ['generateContent', 'streamGenerateContent', 'countTokens'] : [],
    thinking: (config.capabilities.reasoning_efforts ?? []).length > 0,
  };
}

/** GET /v1beta/models: the chat and search models, in one page (no nextPageToken). */
export const listGeminiModels: Handler = (ctx, services) => {
  ctx.body = { models: services.catalog.enabledModels.filter(servesChat).map(geminiModel) };
};

/** GET /v1beta/models/{model}. */
export const retrieveGeminiModel: Handler = (ctx, services) => {
  const name = ctx.params.model!;
  ctx.body = geminiModel(services.catalog.resolve(name.startsWith('models/') ? name.slice('models/'.length) : name));
};
