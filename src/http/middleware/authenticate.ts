// API key authentication: `Authorization: Bearer <key>` (OpenAI SDKs, Anthropic SDK 1.x) or
// `x-api-key: <key>` (Anthropic SDK 0.x and Python).
import type { Next } from 'koa';
import type { ServerServices } from '../../services.js';
import { unauthorized } from '../errors.js';
import type { Context } from '../state.js';

export function presentedKey(ctx: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match?.[1] ?? (ctx.get('x-api-key') || undefined);
}

export function authenticate(services: ServerServices) {
  return async function authenticateMiddleware(ctx: Context, next: Next): Promise<void> {
    const presented = presentedKey(ctx);
    if (!presented) throw unauthorized();
    const apiKey = await services.apiKeys.authenticate(presented);
    if (!apiKey) throw unauthorized('Invalid API key: it is unknown or has been revoked.');
    ctx.state.apiKey = apiKey;
    await next();
  };
}
