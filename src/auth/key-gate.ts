// The gate a request passes as a key, whichever door it came through: the HTTP chain
// (src/http/middleware/authenticate.ts, require-scope.ts, key-limits.ts, rate-limit.ts, thin
// adapters over these functions) and the Telegram bot (src/bot/bot-call.ts), so a limit set on
// a key holds for both. In this order:
// 1. the key usable now (expiry, address allowlist: key-policy.ts) and its scope (assert-scope.ts);
// 2. its tokens per minute (only read) and its requests in flight (a slot taken): enterKeyLimits;
// 3. its requests per minute (counted on admission): consumeRequest.
// 2 comes before 3 so that a request refused by either is counted by none of them. Each refusal
// is the catalog's error, with the Retry-After headers an HTTP client reads; the decisions are
// also handed to `observe` before any refusal, so the HTTP adapters put the x-ratelimit-*
// headers on every limited response, the refused ones included.
import { CacheUnavailableError, reconnectCapMs } from '../cache/redis-connection.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ApiKey } from './api-keys.js';
import { assertScope } from './assert-scope.js';
import { assertKeyUsable } from './key-policy.js';
import type { KeyLimits, ReleaseSlot, TokenDecision } from './key-limits.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import type { Scope } from './scopes.js';

/** What the gate needs of the process's services. */
export interface KeyGateServices {
  readonly keyLimits: KeyLimits;
  readonly rateLimiter: RateLimiter;
  /** gateway_refusals_total, by reason. */
  readonly metrics: { readonly refusals: { inc(labels: { reason: string }): void } };
  readonly now: () => number;
  readonly config: { readonly rateLimit: { readonly requestsPerMinute: number } };
}

const tokensRefusal = { reason: 'tokens_per_minute' } as const;
const inFlightRefusal = { reason: 'in_flight' } as const;
const rateLimitRefusal = { reason: 'rate_limit' } as const;

/** Retry-After of a refusal for requests in flight: nothing tells when one ends, so soon. */
const inFlightRetryMs = 1_000;

const releaseNothing: ReleaseSlot = async () => undefined;

/** cache.on_unavailable: closed. Retry after the reconnect backoff's cap: by then another attempt was made. */
export function limiterUnavailable(): GatewayError {
  return new GatewayError('rate_limiter_unavailable', 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.', {
    headers: { 'retry-after': String(Math.ceil(reconnectCapMs / 1000)) },
  });
}

/**
 * The key's tokens per minute and requests in flight: the release of the in-flight slot taken
 * (to call whatever ends the request; a no-op for a key without max_in_flight), or a refusal.
 * `observe` gets the token decision (a key with a tpm) before any refusal.
 */
export async function enterKeyLimits(services: KeyGateServices, apiKey: ApiKey, requestId: string, observe?: (tokens: TokenDecision) => void): Promise<ReleaseSlot> {
  if (apiKey.tpm === null && apiKey.maxInFlight === null) return releaseNothing;
  let release;
  try {
    const tokens = await services.keyLimits.checkTokens(apiKey);
    if (tokens) {
      observe?.(tokens);
      if (!tokens.allowed) {
        services.metrics.refusals.inc(tokensRefusal);
        const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(tokens.retryAfterMs / 1000)));
        throw new GatewayError(
          'tokens_per_minute_exceeded',
          `Token rate limit reached: ${tokens.limit} tokens per minute for this key (input and output tokens of the calls it made). Retry in ${retryAfterSeconds} s.`,
          { headers: { 'retry-after': String(retryAfterSeconds), 'retry-after-ms': String(Math.min(60_000, Math.ceil(tokens.retryAfterMs))) } },
        );
      }
    }
    release = await services.keyLimits.enter(apiKey, requestId);
  } catch (error) {
    if (error instanceof CacheUnavailableError) throw limiterUnavailable();
    throw error;
  }
  if (release === null) {
    services.metrics.refusals.inc(inFlightRefusal);
    throw new GatewayError('too_many_requests_in_flight', `Too many requests at once: this key may have ${apiKey.maxInFlight} in flight. Retry when one has ended.`, {
      headers: { 'retry-after': String(inFlightRetryMs / 1000), 'retry-after-ms': String(inFlightRetryMs) },
    });
  }
  return release ?? releaseNothing;
}

/**
 * Counts a request against the key's requests per minute (its own rpm, else `defaultRpm`:
 * rate_limit.requests_per_minute), or refuses it (a refused request is not counted). `observe` gets the decision
 * before any refusal.
 */
export async function consumeRequest(services: KeyGateServices, apiKey: ApiKey, defaultRpm: number, observe?: (decision: RateDecision) => void): Promise<void> {
  let decision;
  try {
    decision = await services.rateLimiter.consume(apiKey.id, apiKey.rpm ?? defaultRpm);
  } catch (error) {
    if (error instanceof CacheUnavailableError) throw limiterUnavailable();
    throw error;
  }
  observe?.(decision);
  if (!decision.allowed) {
    services.metrics.refusals.inc(rateLimitRefusal);
    const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
    throw new GatewayError('rate_limit_exceeded', `Rate limit reached: ${decision.limit} requests per minute for this key. Retry in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds), 'retry-after-ms': String(Math.ceil(decision.retryAfterMs)) },
    });
  }
}

/**
 * The whole gate for a caller with no HTTP request (the bot): usable, scoped (`scope` null: any
 * key), within its limits. Returns the in-flight slot's release, to call whatever ends the
 * call; nothing is held after a refusal.
 */
export async function passKeyGate(services: KeyGateServices, apiKey: ApiKey, request: { readonly scope: Scope | null; readonly requestId: string; readonly address: string | undefined }): Promise<ReleaseSlot> {
  assertKeyUsable(apiKey, services.now(), request.address);
  if (request.scope !== null) assertScope(apiKey, request.scope);
  const release = await enterKeyLimits(services, apiKey, request.requestId);
  try {
    await consumeRequest(services, apiKey, services.config.rateLimit.requestsPerMinute);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
