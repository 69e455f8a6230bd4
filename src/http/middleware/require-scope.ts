// Scope enforcement (assertScope, the check the bot's calls pass too: src/auth/key-gate.ts).
// Routes declare their scope in the route table; the pipeline calls
// assertScope (src/auth/assert-scope.ts) for scopes that depend on the model (search models need `search` too).
// On a route whose key may come from the cache (keyCheckedByHold), a refusal is confirmed on the
// key as it is now: an update may have added the scope since the key was cached.
import type { Next } from 'koa';
import { assertScope } from '../../auth/assert-scope.js';
import { assertKeyUsable } from '../../auth/key-policy.js';
import { KeyNotLiveError } from '../../auth/key-errors.js';
import { invalidKey } from '../../errors/refusals.js';
import type { ServerServices } from '../../services.js';
import type { Scope } from '../../auth/scopes.js';
import type { Context } from '../state.js';

export function requireScope(services: ServerServices, scope: Scope, options: { cached?: boolean } = {}) {
  return async function requireScopeMiddleware(ctx: Context, next: Next): Promise<void> {
    const apiKey = ctx.state.apiKey!;
    if (!apiKey.scopes.includes(scope) && options.cached === true) {
      const fresh = await services.apiKeys.refresh(apiKey.id).catch((error: unknown) => {
        if (error instanceof KeyNotLiveError) throw invalidKey();
        throw error;
      });
      if (fresh.revision !== apiKey.revision) {
        assertKeyUsable(fresh, services.now(), ctx.clientAddresses.of(ctx.req));
        ctx.state.apiKey = fresh;
      }
    }
    assertScope(ctx.state.apiKey!, scope);
    ctx.state.scope = scope;
    await next();
  };
}
