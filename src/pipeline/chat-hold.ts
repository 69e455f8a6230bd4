// The hold of a chat request: the worst case (input estimate + output budget at the model's
// prices) held in one statement, the budget clamped to what the balance covers when the client
// set none, and the key re-checked by the hold (the chat routes may have read it from a cache).
import type { ApiKey } from '../auth/api-keys.js';
import { assertScope } from '../auth/assert-scope.js';
import { assertKeyUsable, assertModelAllowed, keyBudget } from '../auth/key-policy.js';
import { affordableOutputTokens, tokenPrices, worstCaseUnits } from '../billing/chat-pricing.js';
import { KeyChangedError } from '../auth/key-errors.js';
import { InsufficientBalanceError } from '../billing/errors.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ChatRequest } from '../model/chat.js';
import type { ServerServices } from '../services.js';

/** Never send upstream an output budget smaller than this: below it, refuse with 402 instead. */
export const minimumOutputTokens = 256;

/**
 * The output budget and the hold, in one round trip on the common path: the worst case is
 * held directly. Only when the balance does not cover it: a client max_tokens is a 402 naming
 * the affordable value; without one, the budget (the model's cap, or the room its context window
 * leaves) is clamped to what the balance covers (never below minimumOutputTokens) and held again.
 */
export async function holdWorstCase(
  services: ServerServices,
  request: ChatRequest,
  model: CatalogModel,
  input: { inputTokens: number; outputBudget: number },
  apiKey: ApiKey,
  details: { requestId: string; description: string; address: string | undefined },
) {
  const prices = tokenPrices(model.config.pricing);
  const { inputTokens } = input;
  let maxOutputTokens = input.outputBudget;
  const worst = worstCaseUnits(prices, inputTokens, maxOutputTokens);
  let key = apiKey;
  if (worst === 0n) {
    // A free model: nothing to hold or charge, so the key is checked on its own.
    for (;;) {
      const refusal = await services.apiKeys.refusal(key.id, key.revision);
      if (!refusal) return { prices, maxOutputTokens, hold: undefined };
      if (!(refusal instanceof KeyChangedError)) throw refusal;
      key = await reloadKey(services, key, model, details.address);
    }
  }
  // The hold re-checks the key: the chat routes may have taken it from the cache (api-keys.ts);
  // a key changed since (keys update) is read again, the request checked against it, and held again.
  const holdFor = async (amount: bigint) => {
    for (;;) {
      const budget = keyBudget(key, services.now());
      const options = {
        ttlMs: services.config.holds.ttlMs, model: model.id, keyId: key.id, keyRevision: key.revision, instanceId: services.holdOwner.id,
        requestId: details.requestId, description: details.description, ...(budget ? { budget } : {}),
      };
      try {
        return await services.settles.hold(key.accountId, amount, options);
      } catch (error) {
        if (!(error instanceof KeyChangedError)) throw error;
        key = await reloadKey(services, key, model, details.address);
      }
    }
  };
  try {
    return { prices, maxOutputTokens, hold: await holdFor(worst) };
  } catch (error) {
    if (!(error instanceof InsufficientBalanceError)) throw error;
    const affordable = affordableOutputTokens(prices, error.availableUnits, inputTokens);
    if (request.maxOutputTokens !== undefined || affordable < minimumOutputTokens) {
      const hint = affordable >= 1 ? `The balance covers max_tokens up to ${affordable}.` : undefined;
      throw new InsufficientBalanceError(worst, error.availableUnits, hint);
    }
    maxOutputTokens = affordable;
  }
  return { prices, maxOutputTokens, hold: await holdFor(worstCaseUnits(prices, inputTokens, maxOutputTokens)) };
}

/** The key read again after a hold found the cached copy stale, and the request checked against it (expiry, address, scopes, model). */
async function reloadKey(services: ServerServices, stale: ApiKey, model: CatalogModel, address: string | undefined): Promise<ApiKey> {
  const fresh = await services.apiKeys.refresh(stale.id);
  assertKeyUsable(fresh, services.now(), address);
  // The cached routes are the chat routes; an update may have taken the scope away.
  assertScope(fresh, 'chat');
  if (model.type === 'search') assertScope(fresh, 'search');
  assertModelAllowed(fresh, model.id);
  return fresh;
}
