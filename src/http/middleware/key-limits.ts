// A key's tokens per minute and requests in flight (src/auth/key-gate.ts: enterKeyLimits, the
// check the bot's calls pass too), checked before the rpm limiter so that a request refused here
// or there is counted by none of them. This adapter puts the token decision into the
// x-ratelimit-*-tokens headers and gives the in-flight slot back in `finally` whatever ends the
// request (answer, error, the rpm refusal, a client gone, a stream cut: the chat handler returns
// only when its stream is over). A key with neither limit passes straight through.
import type { Next } from 'koa';
import { enterKeyLimits } from '../../auth/key-gate.js';
import type { ServerServices } from '../../services.js';
import type { Context } from '../state.js';
import { formatReset } from './rate-limit.js';

export function keyLimits(services: ServerServices) {
  return async function keyLimitsMiddleware(ctx: Context, next: Next): Promise<void> {
    const apiKey = ctx.state.apiKey!;
    if (apiKey.tpm === null && apiKey.maxInFlight === null) return next();
    const release = await enterKeyLimits(services, apiKey, ctx.state.requestId, (tokens) => {
      ctx.set('x-ratelimit-limit-tokens', String(tokens.limit));
      ctx.set('x-ratelimit-remaining-tokens', String(tokens.remaining));
      ctx.set('x-ratelimit-reset-tokens', formatReset(tokens.resetMs));
    });
    try {
      await next();
    } finally {
      await release();
    }
  };
}
