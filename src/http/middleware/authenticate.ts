// API key authentication: `Authorization: Bearer <key>` (OpenAI SDKs, Anthropic SDK 1.x),
// `x-api-key: <key>` (Anthropic SDK 0.x and Python) or `x-goog-api-key: <key>` (@google/genai).
// On the Gemini API's paths (/v1beta/…, /v1/models/…:action) a `?key=<key>` query parameter too,
// as Google takes it; nowhere else, so keys do not end up in the URLs other clients log.
import type { Next } from 'koa';
import { AccountDisabledError, KeyNotLiveError } from '../../auth/key-errors.js';
import { assertKeyUsable, KeyBudgetExceededError } from '../../auth/key-policy.js';
import type { ServerServices } from '../../services.js';
import { invalidKey, unauthorized } from '../../errors/refusals.js';
import type { Context } from '../state.js';

export function presentedKey(ctx: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  const key = match?.[1] ?? (ctx.get('x-api-key') || ctx.get('x-goog-api-key') || undefined);
  if (key !== undefined || !isGeminiPath(ctx.path)) return key;
  const query = ctx.query.key;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

const isGeminiPath = (path: string) => path.startsWith('/v1beta/') || (path.startsWith('/v1/models/') && path.includes(':'));

const missingGeminiKey = 'Missing API key: send "x-goog-api-key: <key>" (or ?key=<key>).';

/**
 * `cached`: the key may come from the process's cache of live keys — only for routes whose
 * hold re-checks it (route table: keyCheckedByHold). A revocation the hold finds is a 401 like
 * any other, a disabled account a 403, and the key leaves the cache.
 */
const budgetRefusal = { reason: 'budget' } as const;

export function authenticate(services: ServerServices, options: { cached?: boolean } = {}) {
  const cached = options.cached === true;
  return async function authenticateMiddleware(ctx: Context, next: Next): Promise<void> {
    const presented = presentedKey(ctx);
    if (!presented) throw isGeminiPath(ctx.path) ? unauthorized(missingGeminiKey) : unauthorized();
    let apiKey = await services.apiKeys.authenticate(presented, { cached });
    if (!apiKey) throw invalidKey();
    // Expiry and the IP allowlist, read from the key already in hand (key-policy.ts). The
    // address is the TCP peer's, or the client's as a proxy of server.trusted_proxies forwards it.
    const address = ctx.clientAddresses.of(ctx.req);
    try {
      assertKeyUsable(apiKey, services.now(), address);
    } catch (error) {
      if (!cached) throw error;
      // A cached key's refusal is confirmed on the key as it is now (keys update may have lifted it).
      apiKey = await refreshed(services, apiKey.id);
      assertKeyUsable(apiKey, services.now(), address);
    }
    ctx.state.apiKey = apiKey;
    try {
      await next();
    } catch (error) {
      // A budget refusal (the hold's, on any route) is counted: gateway_refusals_total{reason="budget"}.
      if (error instanceof KeyBudgetExceededError) services.metrics.refusals.inc(budgetRefusal);
      if (cached && (error instanceof KeyNotLiveError || error instanceof AccountDisabledError)) services.apiKeys.forget(error.keyId);
      throw error; // a 401/402/403 (request-context)
    }
  };
}

async function refreshed(services: ServerServices, keyId: string) {
  try {
    return await services.apiKeys.refresh(keyId);
  } catch (error) {
    if (error instanceof KeyNotLiveError) throw invalidKey();
    throw error;
  }
}
