// Authentication of the account cabinet's routes (route table: auth `session`): the
// `gateway_session` cookie must name a live account session (src/cabinet/sessions.ts); a
// request other than GET/HEAD must echo the session's CSRF token in `x-csrf-token`. The request
// then acts as the account's cabinet key (ctx.state.apiKey), so the /v1 handlers it reuses run
// unchanged. Only routes that declare `session` run this: `key` routes pay nothing for it.
// Routes the table marks `owner` also run requireOwner: a member's session is refused there.
import { timingSafeEqual } from 'node:crypto';
import type { Next } from 'koa';
import type { CabinetSession } from '../../cabinet/sessions.js';
import { readSessionCookie } from '../../cabinet/cookie.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import type { Context, SessionState } from '../state.js';

export const sessionRequired = () =>
  new GatewayError('session_required', 'Log in to the cabinet first: this request has no live session. Sign in on the login page (/cabinet/login), or ask the operator for a login link.');

export const sessionExpired = () => new GatewayError('session_expired', 'Your cabinet session has expired. Sign in again on the login page (/cabinet/login), or ask the operator for a new login link.');

export const csrfTokenInvalid = () =>
  new GatewayError('csrf_token_invalid', 'Missing or wrong x-csrf-token header: send the csrf_token of GET /cabinet/api/session. Nothing was done.');

/** GET and HEAD change nothing, so they need no CSRF token. */
const safeMethods = new Set(['GET', 'HEAD']);

/** 403 csrf_token_invalid unless a request other than GET/HEAD echoes the session's CSRF token (compared in constant time). */
export function assertCsrf(ctx: Context, session: CabinetSession): void {
  if (safeMethods.has(ctx.method)) return;
  const presented = Buffer.from(ctx.get('x-csrf-token'));
  const expected = Buffer.from(session.csrfToken);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw csrfTokenInvalid();
}

/** The live session of the request's cookie, of either kind; 401 session_required or session_expired without one. */
export async function liveSession(ctx: Context, services: ServerServices): Promise<CabinetSession> {
  const lookup = await services.cabinet.sessions.authenticate(readSessionCookie(ctx.get('cookie')));
  if ('refusal' in lookup) throw lookup.refusal === 'session_expired' ? sessionExpired() : sessionRequired();
  return lookup.session;
}

export function sessionState(session: CabinetSession): SessionState {
  return { id: session.id, kind: session.kind, accountId: session.accountId, csrfToken: session.csrfToken, userId: session.userId, role: session.kind === 'admin' ? null : session.role };
}

/** Who the audit log names for what a session does: its user, or the session of an operator's link. */
export const sessionActor = (session: CabinetSession) => (session.userId === null ? `cabinet:${session.id}` : `user:${session.userId}`);

export const ownerRequired = () =>
  new GatewayError('owner_required', "Only the account's owners can do this (move money, manage members, change the account's details). Ask an owner of the account.");

/** The chain's step for routes the route table marks `owner`: a member's session is refused before anything is done. */
export async function requireOwner(ctx: Context, next: Next): Promise<void> {
  if (ctx.state.session?.role !== 'owner') throw ownerRequired();
  await next();
}

export function sessionAuth(services: ServerServices) {
  return async function sessionAuthMiddleware(ctx: Context, next: Next): Promise<void> {
    const session = await liveSession(ctx, services);
    // The kind before the CSRF token: a wrong-kind session is refused alike with or without one.
    if (session.kind !== 'account') throw new GatewayError('forbidden', "This is an account cabinet route; an operator's session cannot use it (the console uses /admin/v1).");
    assertCsrf(ctx, session);
    if (session.accountDisabledAt !== null) throw new GatewayError('account_disabled', 'This account is disabled. Contact the gateway operator.');
    // The user left the account (or was removed) since the login: the session no longer opens it.
    if (session.role === null) throw sessionRequired();
    ctx.state.session = sessionState(session);
    ctx.state.actor = sessionActor(session);
    const apiKey = await services.cabinet.keys.forAccount(session.accountId!);
    services.apiKeys.noteUsed(apiKey.id); // last_used_at, batched like any key's
    ctx.state.apiKey = apiKey;
    await next();
  };
}
