// Scope enforcement. Routes declare their scope in the route table; the pipeline calls
// assertScope for scopes that depend on the model (search models need `search` too).
import type { Next } from 'koa';
import type { ApiKey } from '../../auth/api-keys.js';
import type { Scope } from '../../auth/scopes.js';
import { forbiddenScope } from '../errors.js';
import type { Context } from '../state.js';

export function assertScope(apiKey: ApiKey, scope: Scope): void {
  if (!apiKey.scopes.includes(scope)) throw forbiddenScope(scope);
}

export function requireScope(scope: Scope) {
  return async function requireScopeMiddleware(ctx: Context, next: Next): Promise<void> {
    assertScope(ctx.state.apiKey!, scope);
    await next();
  };
}
