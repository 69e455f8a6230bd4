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
import { cookieIsSecure, clearedSessionCookie, readSessionCookie, sessionCookie } from '../../cabinet/cookie.js';
import { LoginLinkInvalidError } from '../../cabinet/login-links.js';
import type { CabinetSession } from '../../cabinet/sessions.js';
import type { Membership } from '../../users/account-members.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { telegramBotId } from '../../users/telegram-login.js';
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
    // bot_id (the part of the bot's token before its colon) is public: oauth.telegram.org/auth takes it.
    telegram: settings.telegramLogin === undefined ? null : { bot_username: settings.telegramLogin.botUsername, bot_id: telegramBotId(settings.telegramLogin.botToken ?? '') },
  };
};

/** Over TLS: to this process, or to a proxy of server.trusted_proxies that says so (X-Forwarded-Proto). */
export const secureCookie = (ctx: Context, services: ServerServices) => cookieIsSecure(services.cabinet.settings.publicUrl, ctx.clientAddresses.secure(ctx.req));

/**
 * Admits one attempt under a login limit (the project's rate limiter, so it holds across
 * instances sharing Redis), else 429 login_rate_limited with Retry-After. `key` names the
 * bucket: `cabinet-login:<client address>` (link and password logins, sign-ups and reset
 * requests share it) or `cabinet-login-email:<digest>` (password logins of one email).
 */
export async function admitAttempt(services: ServerServices, key: string, limit: number, what: string): Promise<void> {
  let decision;
  try {
    decision = await services.rateLimiter.consume(key, limit);
  } catch (error) {
    if (!(error instanceof CacheUnavailableError)) throw error;
    throw new GatewayError('rate_limiter_unavailable', 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.', {
      headers: { 'retry-after': String(Math.ceil(reconnectCapMs / 1000)) },
    });
  }
  if (!decision.allowed) {
    const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
    throw new GatewayError('login_rate_limited', `Too many login attempts ${what}: ${limit} per minute. Retry in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** The per-address limit (cabinet.login_attempts_per_minute). */
export const admitLoginAttempt = (ctx: Context, services: ServerServices) =>
  admitAttempt(services, `cabinet-login:${ctx.clientAddresses.of(ctx.req) ?? 'unknown'}`, services.cabinet.settings.loginAttemptsPerMinute, 'from this address');

/** Sets the new session's cookie and ends the browser's previous session, if it sent one: a login never keeps a session id. */
export async function startSession(ctx: Context, services: ServerServices, opened: { session: CabinetSession; cookieToken: string }): Promise<void> {
  await services.cabinet.sessions.endByCookie(readSessionCookie(ctx.get('cookie')));
  ctx.set('set-cookie', sessionCookie(opened.cookieToken, opened.session.expiresAt, services.now(), secureCookie(ctx, services)));
  ctx.set('cache-control', 'no-store');
  ctx.body = await presentSessionWithAccounts(opened.session, services);
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
  await startSession(ctx, services, opened);
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
