// Decisions (System One): charged per input token, output free; held on a high estimate
// (3 characters per token of what goes upstream), settled on the upstream's count.
import { inputTokensPriceUnits } from '../billing/media-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { DecisionBody } from '../dialects/openai-media/decisions.js';
import type { DecisionRequest, DecisionResult } from '../model/media.js';
import { chargedMediaCall, type MediaCaller, resolveMediaModel, type MediaServices } from './media.js';

export async function decide(services: MediaServices, caller: MediaCaller, body: DecisionBody): Promise<{ model: CatalogModel; decision: DecisionResult }> {
  const model = resolveMediaModel(services, body.model, ['decision']);
  caller.log.model = model.id;
  const request: DecisionRequest = { state: body.state, questions: body.questions as DecisionRequest['questions'], sessionId: body.session_id, user: body.user };
  const estimate = Math.ceil((JSON.stringify(body.state).length + JSON.stringify(body.questions).length) / 3) + 32;
  const decision = await chargedMediaCall<DecisionRequest, DecisionResult>(services, {
    caller,
    model,
    operation: 'decide',
    request,
    holdUnits: inputTokensPriceUnits(model.config.pricing, estimate),
    actualUnits: (decision) => inputTokensPriceUnits(model.config.pricing, decision.inputTokens),
    description: `decision ${model.id}`,
    units: (decision) => ({ endpoint: 'decisions', inputTokens: decision.inputTokens }),
  });
  return { model, decision };
}
