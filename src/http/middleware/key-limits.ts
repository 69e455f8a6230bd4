// A key's tokens per minute and requests in flight (src/auth/key-limits.ts), checked before the
// rpm limiter so that a request refused here or there is counted by none of them: tpm is only
// read, the in-flight slot taken is given back in `finally` whatever ends the request (answer,
// error, the rpm refusal, a client gone, a stream cut: the chat handler returns only when its
// stream is over). A key with neither limit passes straight through.
import type { Next } from 'koa';
import { CacheUnavailableError, reconnectCapMs } from '../../cache/redis-connection.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import type { Context } from '../state.js';
import { formatReset } from './rate-limit.js';

const tokensRefusal = { reason: 'tokens_per_minute' } as const;
const inFlightRefusal = { reason: 'in_flight' } as const;

/** Retry-After of a refusal for requests in flight: nothing tells when one ends, so soon. */
const inFlightRetryMs = 1_000;

function limiterUnavailable(): GatewayError {
  return new GatewayError('rate_limiter_unavailable', 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.', {
    headers: { 'retry-after': String(Math.ceil(reconnectCapMs / 1000)) },
  });
}

export function keyLimits(services: ServerServices) {
  return async function keyLimitsMiddleware(ctx: Context, next: Next): Promise<void> {
    const apiKey = ctx.state.apiKey!;
    if (apiKey.tpm === null && apiKey.maxInFlight === null) return next();
    let release;
    try {
      const tokens = await services.keyLimits.checkTokens(apiKey);
      if (tokens) {
        ctx.set('x-ratelimit-limit-tokens', String(tokens.limit));
        ctx.set('x-ratelimit-remaining-tokens', String(tokens.remaining));
        ctx.set('x-ratelimit-reset-tokens', formatReset(tokens.resetMs));
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
      release = await services.keyLimits.enter(apiKey, ctx.state.requestId);
    } catch (error) {
      if (error instanceof CacheUnavailableError) throw limiterUnavailable(); // cache.on_unavailable: closed
      throw error;
    }
    if (release === null) {
      services.metrics.refusals.inc(inFlightRefusal);
      throw new GatewayError('too_many_requests_in_flight', `Too many requests at once: this key may have ${apiKey.maxInFlight} in flight. Retry when one has ended.`, {
        headers: { 'retry-after': String(inFlightRetryMs / 1000), 'retry-after-ms': String(inFlightRetryMs) },
      });
    }
    try {
      await next();
    } finally {
      await release?.();
    }
  };
}
