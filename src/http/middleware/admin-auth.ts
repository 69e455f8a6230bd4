// Authentication of the admin API (route table: auth `admin`): an admin token
// (`Authorization: Bearer gwa_…`, for scripts; no CSRF: a browser never sends it by itself) or
// the cookie of an operator's cabinet session (+ `x-csrf-token` on anything but GET/HEAD).
// ctx.state.actor names who acts, for the audit rows the admin routes write; ctx.state.adminScopes
// what it may do: a token's own scopes, every scope for an operator's session (the console is
// the operator, and it calls every admin route). requireAdminScope then checks the route's.
import type { Next } from 'koa';
import { allAdminScopes, type AdminScope } from '../../cabinet/admin-scopes.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import type { Context } from '../state.js';
import { assertCsrf, liveSession, sessionState } from './session-auth.js';

const adminTokenInvalid = () =>
  new GatewayError('admin_token_invalid', 'Invalid admin token: send "Authorization: Bearer gwa_…" with a live token (gateway admin tokens create).');

export function adminAuth(services: ServerServices) {
  return async function adminAuthMiddleware(ctx: Context, next: Next): Promise<void> {
    const authorization = ctx.get('authorization');
    if (authorization) {
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
      const adminToken = presented === undefined ? null : await services.cabinet.adminTokens.authenticate(presented);
      if (!adminToken) throw adminTokenInvalid();
      ctx.state.actor = `admin-token:${adminToken.id}`;
      ctx.state.adminScopes = adminToken.scopes;
      return next();
    }
    const session = await liveSession(ctx, services);
    if (session.kind !== 'admin') throw new GatewayError('forbidden', "The admin API needs an operator's session or an admin token; this is an account's session.");
    assertCsrf(ctx, session);
    ctx.state.session = sessionState(session);
    ctx.state.actor = `cabinet:${session.id}`;
    ctx.state.adminScopes = allAdminScopes;
    await next();
  };
}

/** The scope an admin route declares in the route table, checked after adminAuth: 403 admin_scope_missing naming it. */
export function requireAdminScope(scope: AdminScope) {
  return async function requireAdminScopeMiddleware(ctx: Context, next: Next): Promise<void> {
    const held = ctx.state.adminScopes ?? [];
    if (!held.includes(scope)) {
      const route = `${ctx.method} ${ctx._matchedRoute ?? ctx.path}`;
      throw new GatewayError(
        'admin_scope_missing',
        `This admin token lacks the "${scope}" scope that ${route} needs (its scopes: ${held.join(', ') || 'none'}). Create a token with --scopes ${scope} (gateway admin tokens create).`,
        { param: null },
      );
    }
    await next();
  };
}

