// POST /v1/decisions (System One): a state and named typed questions, validated before
// anything goes upstream; answers passed through as the upstream gives them (refusals too);
// charged per input token, output free. Scope: chat.
import { z } from 'zod';
import { inputTokensPriceUnits } from '../../billing/media-pricing.js';
import type { DecisionRequest, DecisionResult } from '../../model/media.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const instructions = z.union([z.string().min(1), z.record(z.string(), z.unknown()), z.array(z.unknown()).min(1)]);

const question = z.discriminatedUnion('type', [
  z.object({ type: z.literal('noul'), instructions, criteria: z.object({ true: z.string(), false: z.string() }).optional() }),
  z.object({
    type: z.literal('choice'),
    instructions,
    criteria: z
      .record(z.string().min(1), z.string().nullable())
      .refine((options) => Object.keys(options).length >= 2, 'a choice needs at least 2 options')
      .refine((options) => Object.keys(options).length <= 255, 'a choice takes at most 255 options'),
  }),
  z.object({ type: z.literal('score'), instructions, criteria: z.array(z.string()).min(2).max(10) }),
]);

const decisionBody = z.object({
  model: z.string().min(1).optional(),
  state: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  questions: z.record(z.string().min(1), question).refine((questions) => Object.keys(questions).length >= 1, 'at least one question is needed'),
  session_id: z.string().max(200).optional(),
  user: z.string().max(200).optional(),
});

export const createDecision: Handler = async (ctx, services) => {
  const body = validate(decisionBody, ctx.request.body, 'body');
  const model = resolveMediaModel(services, body.model, ['decision']);
  ctx.state.model = model.id;
  const request: DecisionRequest = { state: body.state, questions: body.questions as DecisionRequest['questions'], sessionId: body.session_id, user: body.user };
  // Hold a high estimate (3 characters per token of what goes upstream); settle on the upstream's count.
  const estimate = Math.ceil((JSON.stringify(body.state).length + JSON.stringify(body.questions).length) / 3) + 32;
  const { result, chargedUnits } = await chargedMediaCall<DecisionRequest, DecisionResult>(services, {
    apiKey: ctx.state.apiKey!,
    requestId: ctx.state.requestId,
    model,
    operation: 'decide',
    request,
    holdUnits: inputTokensPriceUnits(model.config.pricing, estimate),
    actualUnits: (decision) => inputTokensPriceUnits(model.config.pricing, decision.inputTokens),
    description: `decision ${model.id}`,
  });
  ctx.state.chargedUnits = chargedUnits;
  ctx.body = { model: body.model ?? model.id, answers: result.answers, usage: { input_tokens: result.inputTokens, output_tokens: 0 } };
};
