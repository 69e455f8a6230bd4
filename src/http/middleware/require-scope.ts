// Scope enforcement. Routes declare their scope in the route table; the pipeline calls
// assertScope (src/auth/assert-scope.ts) for scopes that depend on the model (search models need `search` too).
import type { Next } from 'koa';
import { assertScope } from '../../auth/assert-scope.js';
import type { Scope } from '../../auth/scopes.js';
import type { Context } from '../state.js';

export function requireScope(scope: Scope) {
  return async function requireScopeMiddleware(ctx: Context, next: Next): Promise<void> {
    assertScope(ctx.state.apiKey!, scope);
    await next();
  };
}
