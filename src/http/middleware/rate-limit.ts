// Per-key rate limit. Every limited response carries the x-ratelimit-* headers; a refusal is
// a 429 with an integer Retry-After (1-60 s, rounded up) and retry-after-ms, which the SDKs
// honour. Refused requests are not counted (GCRA only advances on admission).
import type { Next } from 'koa';
import { CacheUnavailableError, reconnectCapMs } from '../../cache/redis-connection.js';
import type { ServerServices } from '../../services.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Context } from '../state.js';

/** OpenAI's reset format: "1s", "6m0s", "250ms". */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const seconds = Math.ceil(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

const rateLimitRefusal = { reason: 'rate_limit' } as const;

export function rateLimit(services: ServerServices) {
  const defaultRpm = services.config.rateLimit.requestsPerMinute;
  return async function rateLimitMiddleware(ctx: Context, next: Next): Promise<void> {
    const apiKey = ctx.state.apiKey!;
    let decision;
    try {
      decision = await services.rateLimiter.consume(apiKey.id, apiKey.rpm ?? defaultRpm);
    } catch (error) {
      if (!(error instanceof CacheUnavailableError)) throw error;
      // cache.on_unavailable: closed. Retry after the reconnect backoff's cap: by then another attempt was made.
      throw new GatewayError('rate_limiter_unavailable', 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.', {
        headers: { 'retry-after': String(Math.ceil(reconnectCapMs / 1000)) },
      });
    }
    ctx.set('x-ratelimit-limit-requests', String(decision.limit));
    ctx.set('x-ratelimit-remaining-requests', String(decision.remaining));
    ctx.set('x-ratelimit-reset-requests', formatReset(decision.resetMs));
    if (!decision.allowed) {
      services.metrics.refusals.inc(rateLimitRefusal);
      const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
      throw new GatewayError('rate_limit_exceeded', `Rate limit reached: ${decision.limit} requests per minute for this key. Retry in ${retryAfterSeconds} s.`, {
        headers: { 'retry-after': String(retryAfterSeconds), 'retry-after-ms': String(Math.ceil(decision.retryAfterMs)) },
      });
    }
    await next();
  };
}
