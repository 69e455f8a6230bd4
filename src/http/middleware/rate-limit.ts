// Per-key rate limit (src/auth/key-gate.ts: consumeRequest, the count the bot's calls pass
// too). Every limited response carries the x-ratelimit-* headers, set here from the decision; a
// refusal is a 429 with an integer Retry-After (1-60 s, rounded up) and retry-after-ms, which
// the SDKs honour. Refused requests are not counted (GCRA only advances on admission).
import type { Next } from 'koa';
import { consumeRequest } from '../../auth/key-gate.js';
import type { ServerServices } from '../../services.js';
import type { Context } from '../state.js';

/** OpenAI's reset format: "1s", "6m0s", "250ms". */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const seconds = Math.ceil(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

export function rateLimit(services: ServerServices) {
  const defaultRpm = services.config.rateLimit.requestsPerMinute;
  return async function rateLimitMiddleware(ctx: Context, next: Next): Promise<void> {
    await consumeRequest(services, ctx.state.apiKey!, defaultRpm, (decision) => {
      ctx.set('x-ratelimit-limit-requests', String(decision.limit));
      ctx.set('x-ratelimit-remaining-requests', String(decision.remaining));
      ctx.set('x-ratelimit-reset-requests', formatReset(decision.resetMs));
    });
    await next();
  };
}
