// The cabinet's login, logout and session (docs/cabinet.md):
// - POST /cabinet/api/login {token}: redeems a login link (once), opens a session, sets the
//   cookie. Limited per client address (the TCP peer, or the client a proxy of
//   server.trusted_proxies forwards) (cabinet.login_attempts_per_minute) by the project's
//   rate limiter, so the limit holds across instances sharing Redis; every attempt with a JSON
//   body counts, good or bad, valid or not.
// - POST /cabinet/api/logout (cookie + x-csrf-token): ends the session, clears the cookie.
// - GET /cabinet/api/session: the session of the cookie (its CSRF token for the page).
// - GET /cabinet/api/login-options: which ways in the login page offers.
// Both kinds of session (account, admin) use these three; the route table declares them
// `none` and the handlers read the session themselves.
// - GET / → 302 /cabinet/ (the page).
import { z } from 'zod';
import { CacheUnavailableError, reconnectCapMs } from '../../cache/redis-connection.js';
import { cookieIsSecure, clearedSessionCookie, sessionCookie } from '../../cabinet/cookie.js';
import { LoginLinkInvalidError } from '../../cabinet/login-links.js';
import type { CabinetSession } from '../../cabinet/sessions.js';
import type { Membership } from '../../users/account-members.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { validate } from '../../validation/zod-details.js';
import { assertCsrf, liveSession } from '../middleware/session-auth.js';
import type { Context, Handler } from '../state.js';

const loginBody = z.strictObject({ token: z.string().min(1).max(200) });

/**
 * What login and GET /cabinet/api/session answer. `user`: the session's user (null for an
 * operator's link or console session); `role`: owner or member of the account (null for the
 * console); `accounts`: every account the user is a member of, to switch between (POST
 * /cabinet/api/session/account); empty for a session without a user.
 */
export function presentSession(session: CabinetSession, memberships: readonly Membership[] = []) {
  return {
    kind: session.kind,
    account: session.accountId === null ? null : { id: session.accountId, name: session.accountName },
    user: session.userId === null ? null : { id: session.userId },
    role: session.kind === 'admin' ? null : session.role,
    accounts: memberships.map((membership) => ({ id: membership.accountId, name: membership.accountName, role: membership.role })),
    method: session.method,
    csrf_token: session.csrfToken,
    expires_at: new Date(session.expiresAt).toISOString(),
  };
}

/** presentSession with the user's accounts read from the database (GET /cabinet/api/session, a join, a switch). */
export async function presentSessionWithAccounts(session: CabinetSession, services: ServerServices) {
  return presentSession(session, session.userId === null ? [] : await services.users.members.ofUser(session.userId));
}

/**
 * GET /cabinet/api/login-options (public): the ways in this gateway offers, so the login page
 * shows only those: sign-up mode, email and password (needs `email`), OIDC providers, Telegram.
 */
export const loginOptions: Handler = (ctx, services) => {
  const settings = services.cabinet.settings;
  const emailReady = services.users.mailer !== undefined;
  ctx.set('cache-control', 'no-store');
  ctx.body = {
    signup: settings.signup,
    password: emailReady,
    oidc: settings.oidc.map((provider) => ({ name: provider.name, label: provider.label })),
    telegram: settings.telegramLogin === undefined ? null : { bot_username: settings.telegramLogin.botUsername },
  };
};

/** Over TLS: to this process, or to a proxy of server.trusted_proxies that says so (X-Forwarded-Proto). */
export const secureCookie = (ctx: Context, services: ServerServices) => cookieIsSecure(services.cabinet.settings.publicUrl, ctx.clientAddresses.secure(ctx.req));

async function admitLoginAttempt(ctx: Context, services: ServerServices): Promise<void> {
  const limit = services.cabinet.settings.loginAttemptsPerMinute;
  let decision;
  try {
    decision = await services.rateLimiter.consume(`cabinet-login:${ctx.clientAddresses.of(ctx.req) ?? 'unknown'}`, limit);
  } catch (error) {
    if (!(error instanceof CacheUnavailableError)) throw error;
    throw new GatewayError('rate_limiter_unavailable', 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.', {
      headers: { 'retry-after': String(Math.ceil(reconnectCapMs / 1000)) },
    });
  }
  if (!decision.allowed) {
    const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
    throw new GatewayError('login_rate_limited', `Too many login attempts from this address: ${limit} per minute. Retry in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

export const login: Handler = async (ctx, services) => {
  await admitLoginAttempt(ctx, services);
  const body = validate(loginBody, ctx.request.body, 'body');
  let opened;
  try {
    opened = await services.cabinet.sessions.login(body.token, { userAgent: ctx.get('user-agent') || null, address: ctx.clientAddresses.of(ctx.req) ?? null }, (session) => {
      // Refused before anything is kept: the link stays unused.
      if (session.accountDisabledAt !== null) throw new GatewayError('account_disabled', 'This account is disabled. Contact the gateway operator.');
    });
  } catch (error) {
    if (error instanceof LoginLinkInvalidError) throw new GatewayError('login_link_invalid', error.message, { param: 'token' });
    throw error;
  }
  const { session, cookieToken } = opened;
  ctx.set('set-cookie', sessionCookie(cookieToken, session.expiresAt, services.now(), secureCookie(ctx, services)));
  ctx.set('cache-control', 'no-store');
  ctx.body = presentSession(session);
};

export const logout: Handler = async (ctx, services) => {
  const session = await liveSession(ctx, services);
  assertCsrf(ctx, session);
  await services.cabinet.sessions.end(session.id);
  ctx.set('set-cookie', clearedSessionCookie(secureCookie(ctx, services)));
  ctx.status = 204;
};

export const currentSession: Handler = async (ctx, services) => {
  const session = await liveSession(ctx, services);
  ctx.set('cache-control', 'no-store');
  ctx.body = await presentSessionWithAccounts(session, services);
};

export const rootRedirect: Handler = (ctx) => {
  ctx.status = 302;
  ctx.set('location', '/cabinet/');
};
