// POST /v1/decisions (System One): a state and named typed questions, validated before
// anything goes upstream; answers passed through as the upstream gives them (refusals too);
// charged per input token, output free (pipeline/decisions.ts). Scope: chat.
import { decisionBody } from '../../dialects/openai-media/decisions.js';
import { decide } from '../../pipeline/decisions.js';
import { validate } from '../../validation/zod-details.js';
import { callerOf, type Handler } from '../state.js';

export const createDecision: Handler = async (ctx, services) => {
  const body = validate(decisionBody, ctx.request.body, 'body');
  const { model, decision } = await decide(services, callerOf(ctx), body);
  ctx.body = { model: body.model ?? model.id, answers: decision.answers, usage: { input_tokens: decision.inputTokens, output_tokens: 0 } };
};
