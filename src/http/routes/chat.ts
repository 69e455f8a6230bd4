// POST /v1/chat/completions, /v1/responses, /v1/messages: one handler shape, one pipeline;
// the dialect is the only difference. POST /v1/messages/count_tokens counts without charging.
import type { Dialect } from '../../dialects/types.js';
import { decodeCountTokensRequest, encodeCountTokens, messagesDialect } from '../../dialects/messages/index.js';
import { estimateInputTokens } from '../../model/token-estimate.js';
import { resolveChatModel, runChat } from '../../pipeline/chat.js';
import { koaSink } from '../koa-sink.js';
import type { Handler } from '../state.js';

export function chatHandler(dialect: Dialect): Handler {
  return async (ctx, services) => {
    const outcome = await runChat(services, {
      dialect,
      body: ctx.request.body,
      apiKey: ctx.state.apiKey!,
      requestId: ctx.state.requestId,
      sink: koaSink(ctx),
      log: ctx.state,
      address: ctx.clientAddresses.of(ctx.req),
      trace: ctx.state.trace,
    });
    ctx.state.model = outcome.model;
    ctx.state.chargedUnits = outcome.chargedUnits;
  };
}

export const countTokens: Handler = (ctx, services) => {
  const request = decodeCountTokensRequest(ctx.request.body);
  const { model } = resolveChatModel(services.catalog, messagesDialect, request, ctx.state.apiKey!, ctx.request.body);
  ctx.state.model = model.id;
  ctx.body = encodeCountTokens(estimateInputTokens(request));
};
