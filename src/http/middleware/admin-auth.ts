// Authentication of the admin API (route table: auth `admin`): an admin token
// (`Authorization: Bearer gwa_…`, for scripts; no CSRF: a browser never sends it by itself) or
// the cookie of an operator's cabinet session (+ `x-csrf-token` on anything but GET/HEAD).
// ctx.state.actor names who acts, for the audit rows the admin routes write.
import type { Next } from 'koa';
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
      return next();
    }
    const session = await liveSession(ctx, services);
    if (session.kind !== 'admin') throw new GatewayError('forbidden', "The admin API needs an operator's session or an admin token; this is an account's session.");
    assertCsrf(ctx, session);
    ctx.state.session = sessionState(session);
    ctx.state.actor = `cabinet:${session.id}`;
    await next();
  };
}

