// The charge of a chat request, opened through the charge envelope: the worst case (input
// estimate + output budget at the model's prices) held in one statement, the budget clamped to
// what the balance covers when the client set none, and the key re-checked by the hold (the chat
// routes may have read it from a cache).
import type { ApiKey } from '../auth/api-keys.js';
import { assertScope } from '../auth/assert-scope.js';
import { assertKeyUsable, assertModelAllowed } from '../auth/key-policy.js';
import { openCharge, type Charge, type ChargeServices } from '../billing/charge-envelope.js';
import { affordableOutputTokens, tokenPrices, worstCaseUnits, type TokenPrices } from '../billing/chat-pricing.js';
import { InsufficientBalanceError } from '../billing/errors.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ChatRequest } from '../model/chat.js';
import { highInputTokens, measureInput, plainInputTokens } from '../model/token-estimate.js';
import type { RequestTrace } from '../observability/tracer.js';
import type { ResolvedChat } from './chat-model.js';
import { fitContextWindow } from './context-window.js';

/** Never send upstream an output budget smaller than this: below it, refuse with 402 instead. */
export const minimumOutputTokens = 256;

export interface ChatCharge {
  readonly prices: TokenPrices;
  /** The output budget sent upstream: the one asked, or clamped to what the balance covers. */
  readonly maxOutputTokens: number;
  readonly charge: Charge;
}

/** What a chat's hold is sized by: the input estimate it is held for, and the output budget. */
export interface ChatHoldSize {
  readonly inputTokens: number;
  readonly outputBudget: number;
}

/**
 * One walk over the request gives both input estimates: the plain one must fit the context
 * window (refused before any hold; `inputField` is where the error points), the high one sizes
 * the hold. A chat and a background response size theirs by it.
 */
export function chatHoldSize({ model, capabilities, request }: ResolvedChat, inputField: string): ChatHoldSize {
  const inputSize = measureInput(request);
  const outputBudget = fitContextWindow(model.config.capabilities.context_window, plainInputTokens(inputSize), { requested: request.maxOutputTokens, cap: capabilities.maxOutputTokens }, inputField);
  return { inputTokens: highInputTokens(inputSize), outputBudget };
}

/**
 * The output budget and the hold, in one round trip on the common path: the worst case is
 * held directly. Only when the balance does not cover it: a client max_tokens is a 402 naming
 * the affordable value; without one, the budget (the model's cap, or the room its context window
 * leaves) is clamped to what the balance covers (never below minimumOutputTokens) and held again.
 */
export async function openChatCharge(
  services: ChargeServices,
  request: ChatRequest,
  model: CatalogModel,
  input: ChatHoldSize,
  apiKey: ApiKey,
  details: { requestId: string; description: string; address: string | undefined; trace: RequestTrace },
): Promise<ChatCharge> {
  const prices = tokenPrices(model.config.pricing);
  const { inputTokens } = input;
  let maxOutputTokens = input.outputBudget;
  const worst = worstCaseUnits(prices, inputTokens, maxOutputTokens);
  const whenShort = (refusal: InsufficientBalanceError): bigint => {
    const affordable = affordableOutputTokens(prices, refusal.availableUnits, inputTokens);
    if (request.maxOutputTokens !== undefined || affordable < minimumOutputTokens) {
      const hint = affordable >= 1 ? `The balance covers max_tokens up to ${affordable}.` : undefined;
      throw new InsufficientBalanceError(worst, refusal.availableUnits, hint);
    }
    maxOutputTokens = affordable;
    return worstCaseUnits(prices, inputTokens, maxOutputTokens);
  };
  const charge = await openCharge(
    services,
    {
      key: apiKey,
      model: model.id,
      requestId: details.requestId,
      description: details.description,
      // The cached routes are the chat routes; an update may have taken the scope away.
      recheck: (fresh) => {
        assertKeyUsable(fresh, services.now(), details.address);
        assertScope(fresh, 'chat');
        if (model.type === 'search') assertScope(fresh, 'search');
        assertModelAllowed(fresh, model.id);
      },
      trace: details.trace,
    },
    worst,
    { whenShort },
  );
  return { prices, maxOutputTokens, charge };
}
