// Logins proven by someone else (docs/cabinet.md, "OpenID Connect" and "Telegram"). The
// browser navigates to these (they are not the page's API calls), so every answer is a redirect:
// to the provider, to the cabinet with a new session cookie, or to the login page with
// `?login_error=<reason>`, which the page words (web/src/pages/login-providers.tsx).
// - GET /cabinet/api/oidc/:name/start[?invite=gwi_…][&ref=<referral code>] → 302 to the provider (oidc-login.ts; limited
//   per client address like link logins), with
//   the state in the `gateway_oidc` cookie (HttpOnly, SameSite=Lax: it must come back on the
//   provider's top-level redirect to the callback, which Strict would withhold; Path limited to
//   these routes; 10 minutes).
// - GET /cabinet/api/oidc/:name/callback → the code exchanged, the user found, linked or signed
//   up (outside-login.ts), a session opened → 302 /cabinet/.
// - GET /cabinet/api/telegram/callback?id=…&auth_date=…&hash=…[&invite=gwi_…][&ref=<code>] → the
//   signed data checked (telegram-login.ts), then as above.
// `invite` and `ref` are what the sign-up page was opened with: kept with the pending OIDC login
// (server-side, like the invite code) and added by the page to the Telegram callback; they
// matter only when the login signs a new user up (docs/payments.md, "Referrals").
// Nothing secret reaches a log: the request log and traces keep the path, never the query.
import { CacheUnavailableError } from '../../cache/redis-connection.js';
import { cookieIsSecure, sessionCookie } from '../../cabinet/cookie.js';
import type { ServerServices } from '../../services.js';
import { OidcLoginError, pendingLoginTtlMs } from '../../users/oidc-login.js';
import { logInFromOutside, OutsideLoginRefusedError, type OutsideIdentity } from '../../users/outside-login.js';
import { TelegramLoginError, verifyTelegramLogin } from '../../users/telegram-login.js';
import type { Context, Handler } from '../state.js';

const stateCookieName = 'gateway_oidc';
const stateCookiePath = '/cabinet/api/oidc/';

const secureCookie = (ctx: Context, services: ServerServices) => cookieIsSecure(services.cabinet.settings.publicUrl, ctx.clientAddresses.secure(ctx.req));

function stateCookie(value: string, maxAgeMs: number, secure: boolean): string {
  return `${stateCookieName}=${value}; Path=${stateCookiePath}; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure ? '; Secure' : ''}`;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * Where browsers reach this gateway: cabinet.public_url when set, else this request's own
 * scheme and host (the provider redirects only to a callback registered with it, so a forged
 * Host header gains nothing).
 */
function origin(ctx: Context, services: ServerServices): string {
  if (services.config.cabinet.publicUrlConfigured) return services.cabinet.settings.publicUrl;
  return `${ctx.clientAddresses.secure(ctx.req) ? 'https' : 'http'}://${ctx.host}`;
}

export const oidcCallbackPath = (name: string) => `/cabinet/api/oidc/${name}/callback`;

function toLoginPage(ctx: Context, reason: string, extraCookies: string[] = []): void {
  ctx.status = 302;
  ctx.set('cache-control', 'no-store');
  if (extraCookies.length > 0) ctx.set('set-cookie', extraCookies);
  ctx.set('location', `/cabinet/login?login_error=${encodeURIComponent(reason)}`);
}

/** An invite or referral code as the visitor brought it (a malformed invite is left for Invites.consume to refuse; a referral code that names nothing is ignored). */
const inviteOf = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : null);

const localeOf = (ctx: Context) => (/^ru\b/i.test(ctx.get('accept-language')) ? 'ru' : 'en');

async function logIn(
  ctx: Context,
  services: ServerServices,
  identity: OutsideIdentity,
  method: 'oidc' | 'telegram',
  codes: { inviteCode: string | null; referralCode: string | null },
  extraCookies: string[],
): Promise<void> {
  let result;
  try {
    result = await logInFromOutside(
      { db: services.db, users: services.users, sessions: services.cabinet.sessions, now: services.now },
      identity,
      { method, inviteCode: codes.inviteCode, referralCode: codes.referralCode, locale: localeOf(ctx), client: { userAgent: ctx.get('user-agent') || null, address: ctx.clientAddresses.of(ctx.req) ?? null } },
    );
  } catch (error) {
    if (!(error instanceof OutsideLoginRefusedError)) throw error;
    services.logger.info({ provider: identity.provider, reason: error.reason }, `a ${method} login was refused: ${error.message}`);
    return toLoginPage(ctx, error.reason, extraCookies);
  }
  ctx.status = 302;
  ctx.set('cache-control', 'no-store');
  ctx.set('set-cookie', [...extraCookies, sessionCookie(result.cookieToken, result.session.expiresAt, services.now(), secureCookie(ctx, services))]);
  ctx.set('location', '/cabinet/');
}

/**
 * Each start keeps a pending login for 10 minutes: starts are limited per client address as
 * link logins are (cabinet.login_attempts_per_minute, shared through Redis), so nobody fills the
 * cache with them.
 */
async function admitStart(ctx: Context, services: ServerServices): Promise<boolean> {
  try {
    const decision = await services.rateLimiter.consume(`cabinet-oidc:${ctx.clientAddresses.of(ctx.req) ?? 'unknown'}`, services.cabinet.settings.loginAttemptsPerMinute);
    return decision.allowed;
  } catch (error) {
    if (!(error instanceof CacheUnavailableError)) throw error;
    return false;
  }
}

export const oidcStart: Handler = async (ctx, services) => {
  const name = ctx.params.name!;
  if (!(await admitStart(ctx, services))) return toLoginPage(ctx, 'rate_limited');
  let started;
  try {
    started = await services.oidcLogins.start(name, { redirectUri: `${origin(ctx, services)}${oidcCallbackPath(name)}`, inviteCode: inviteOf(ctx.query.invite), referralCode: inviteOf(ctx.query.ref) });
  } catch (error) {
    if (!(error instanceof OidcLoginError)) throw error;
    services.logger.warn({ err: error.cause ?? error, provider: name }, `an OpenID Connect login could not start: ${error.message}`);
    return toLoginPage(ctx, error.reason);
  }
  ctx.status = 302;
  ctx.set('cache-control', 'no-store');
  ctx.set('set-cookie', stateCookie(started.state, pendingLoginTtlMs, secureCookie(ctx, services)));
  ctx.set('location', started.url);
};

export const oidcCallback: Handler = async (ctx, services) => {
  const name = ctx.params.name!;
  // Whatever happens, the state cookie has done its work.
  const cleared = stateCookie('', 0, secureCookie(ctx, services));
  let finished;
  try {
    finished = await services.oidcLogins.finish(name, new URLSearchParams(ctx.querystring), readCookie(ctx.get('cookie'), stateCookieName));
  } catch (error) {
    if (!(error instanceof OidcLoginError)) throw error;
    services.logger.warn({ err: error.cause ?? error, provider: name }, `an OpenID Connect login failed: ${error.message}`);
    return toLoginPage(ctx, error.reason, [cleared]);
  }
  await logIn(ctx, services, finished.identity, 'oidc', { inviteCode: finished.inviteCode, referralCode: finished.referralCode }, [cleared]);
};

export const telegramCallback: Handler = async (ctx, services) => {
  const settings = services.cabinet.settings.telegramLogin;
  if (settings === undefined || settings.botToken === undefined) return toLoginPage(ctx, 'provider_unknown');
  const received = Object.fromEntries(Object.entries(ctx.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  let telegramUser;
  try {
    telegramUser = verifyTelegramLogin(received, { botToken: settings.botToken, maxAgeMs: settings.maxAgeMs, now: services.now() });
  } catch (error) {
    if (!(error instanceof TelegramLoginError)) throw error;
    services.logger.info({ reason: error.reason }, `a Telegram login was refused: ${error.message}`);
    return toLoginPage(ctx, error.reason);
  }
  const name = [telegramUser.firstName, telegramUser.lastName].filter((part) => part !== null).join(' ') || telegramUser.username;
  await logIn(ctx, services, { provider: 'telegram', subject: telegramUser.id, email: null, emailVerified: false, name: name ? name.slice(0, 200) : null }, 'telegram', { inviteCode: inviteOf(received.invite), referralCode: inviteOf(received.ref) }, []);
};
