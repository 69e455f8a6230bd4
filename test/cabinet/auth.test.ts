// The cabinet's authentication through HTTP, on both databases (issue 17): one-time login
// links (a second redemption, an unknown and an expired link: one 401), sessions that end by
// idle time, by their absolute end (on the injected clock), by revocation and by logout; CSRF on
// everything but GET/HEAD (refused requests change nothing); the kinds kept apart (403
// forbidden); admin tokens without CSRF, refused once revoked; the login rate limit per
// address; the cookie's exact flags; the account's cabinet key. Probe routes of each auth kind
// stand in for the cabinet and admin routes other files test.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { MemoryRateLimiter } from '../../src/auth/rate-limiter.js';
import { allScopes } from '../../src/auth/scopes.js';
import { routeTable, type RouteDefinition } from '../../src/http/route-table.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { cabinetHeaders, createAdminToken, loginAs, loginLinkToken } from '../helpers/cabinet.js';
import { testClock, type TestClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;

/** Probe routes: what each auth kind leaves on ctx.state, and a state change to count. */
function probeRoutes(changes: { count: number }): RouteDefinition[] {
  const show: RouteDefinition['handler'] = (ctx) => {
    ctx.body = { actor: ctx.state.actor ?? null, session: ctx.state.session ?? null, key: ctx.state.apiKey ? { id: ctx.state.apiKey.id, name: ctx.state.apiKey.name, purpose: ctx.state.apiKey.purpose } : null };
  };
  const change: RouteDefinition['handler'] = (ctx) => {
    changes.count++;
    ctx.body = { changed: changes.count };
  };
  return [
    ...routeTable,
    { method: 'GET', path: '/probe/account', auth: 'session', scope: null, handler: show },
    { method: 'POST', path: '/probe/account', auth: 'session', scope: null, body: 'json', handler: change },
    { method: 'GET', path: '/probe/admin', auth: 'admin', scope: 'read', handler: show },
    { method: 'POST', path: '/probe/admin', auth: 'admin', scope: 'accounts', handler: change },
  ];
}

async function cabinetGateway(
  t: ExecutionContext,
  database: TestDatabase,
  options: { cabinet?: Record<string, unknown>; clock?: TestClock; rateLimiter?: MemoryRateLimiter; trustedProxies?: string[] } = {},
) {
  const clock = options.clock ?? testClock();
  const changes = { count: 0 };
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    raw: { ...raw, server: { ...raw.server, trusted_proxies: options.trustedProxies ?? [] }, cabinet: options.cabinet ?? {} },
    routes: probeRoutes(changes),
    now: clock.now,
    rateLimiter: options.rateLimiter,
  });
  const account = await gateway.services.accounts.create(`cabinet-${Math.random().toString(36).slice(2, 10)}`);
  return { gateway, clock, changes, account, url: gateway.url };
}

const postLogin = (url: string, body: unknown) =>
  fetch(`${url}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function errorOf(response: Response): Promise<{ status: number; code: string; type: string; message: string; param: string | null }> {
  const body = (await response.json()) as { error: { code: string; type: string; message: string; param: string | null } };
  return { status: response.status, code: body.error.code, type: body.error.type, message: body.error.message, param: body.error.param };
}

const linkInvalid = {
  status: 401,
  code: 'login_link_invalid',
  type: 'authentication_error',
  message: 'This login link is invalid, expired or already used. Sign in on the login page (/cabinet/login), or ask the operator for a new link.',
  param: 'token',
};
const sessionRequired = {
  status: 401,
  code: 'session_required',
  type: 'authentication_error',
  message: 'Log in to the cabinet first: this request has no live session. Sign in on the login page (/cabinet/login), or ask the operator for a login link.',
  param: null,
};
const sessionExpired = {
  status: 401,
  code: 'session_expired',
  type: 'authentication_error',
  message: 'Your cabinet session has expired. Sign in again on the login page (/cabinet/login), or ask the operator for a new login link.',
  param: null,
};
const csrfInvalid = {
  status: 403,
  code: 'csrf_token_invalid',
  type: 'permission_error',
  message: 'Missing or wrong x-csrf-token header: send the csrf_token of GET /cabinet/api/session. Nothing was done.',
  param: null,
};

testOnBackends('a login link opens one session, once: the answer, the exact cookie, and a second redemption is 401 login_link_invalid', async (t, database) => {
  const { url, gateway, clock, account } = await cabinetGateway(t, database);
  const token = await loginLinkToken(gateway.services, { account: account.name });
  t.regex(token, /^gwl_[A-Za-z0-9_-]{43}$/);
  const response = await postLogin(url, { token });
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  const body = (await response.json()) as Record<string, any>;
  const expiresAt = clock.now() + 7 * dayMs;
  t.deepEqual(body, { kind: 'account', account: { id: account.id, name: account.name }, user: null, role: 'owner', accounts: [], method: 'link', csrf_token: body.csrf_token, expires_at: new Date(expiresAt).toISOString() });
  t.regex(body.csrf_token, /^[0-9a-f]{64}$/);
  const cookies = response.headers.getSetCookie();
  t.is(cookies.length, 1);
  const cookieToken = /^gateway_session=(gws_[A-Za-z0-9_-]{43});/.exec(cookies[0]!)?.[1];
  t.truthy(cookieToken);
  t.is(cookies[0], `gateway_session=${cookieToken}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800; Expires=${new Date(expiresAt).toUTCString()}`, 'not Secure: public_url is http and the request came over plain TCP');

  // Stored as hashes only: neither the link's token nor the cookie's is in the database.
  const link = await database.db('login_links').first();
  t.is(link.token_hash.length, 64);
  t.not(link.token_hash, token);
  t.is(Number(link.used_at), clock.now());
  const session = await database.db('cabinet_sessions').first();
  t.false(JSON.stringify(session).includes(cookieToken!));
  t.false(JSON.stringify(link).includes(token));

  t.deepEqual(await errorOf(await postLogin(url, { token })), linkInvalid, 'the second redemption');
  t.deepEqual(await errorOf(await postLogin(url, { token: `gwl_${'A'.repeat(43)}` })), linkInvalid, 'an unknown link: the same answer');
  t.deepEqual(await errorOf(await postLogin(url, { token: 'not a token' })), linkInvalid, 'a malformed one too');
  t.is(Number((await database.db('cabinet_sessions').count({ n: '*' }).first())!.n), 1, 'one session, from the one redemption');

  const invalidBody = await postLogin(url, {});
  t.is(invalidBody.status, 422);
  t.is(((await invalidBody.json()) as any).error.param, 'token');

  // The session answers GET /cabinet/api/session with the same shape.
  const current = await fetch(`${url}/cabinet/api/session`, { headers: { cookie: `gateway_session=${cookieToken}` } });
  t.is(current.status, 200);
  t.deepEqual(await current.json(), body);
  t.deepEqual(await errorOf(await fetch(`${url}/cabinet/api/session`)), sessionRequired, 'no cookie');
});

testOnBackends('an expired login link is refused like a used one; the last millisecond before still opens', async (t, database) => {
  const { url, gateway, clock, account } = await cabinetGateway(t, database, { cabinet: { link_ttl: '10m' } });
  const early = await loginLinkToken(gateway.services, { account: account.id });
  const late = await loginLinkToken(gateway.services, { account: account.id });
  clock.advance(10 * minuteMs - 1);
  t.is((await postLogin(url, { token: early })).status, 200);
  clock.advance(1);
  t.deepEqual(await errorOf(await postLogin(url, { token: late })), linkInvalid);
  t.is(Number((await database.db('login_links').whereNull('used_at').count({ n: '*' }).first())!.n), 1, 'the expired link stays unused');
});

testOnBackends('idle expiry on the injected clock; last_seen_at is written at most once a minute', async (t, database) => {
  const { url, gateway, clock, account } = await cabinetGateway(t, database, { cabinet: { session_idle: '30m' } });
  const login = await loginAs(url, gateway.services, { account: account.name });
  const get = () => fetch(`${url}/cabinet/api/session`, { headers: { cookie: login.cookie } });
  const lastSeen = async () => Number((await database.db('cabinet_sessions').first('last_seen_at')).last_seen_at);
  const loggedInAt = clock.now();

  clock.advance(minuteMs - 1);
  t.is((await get()).status, 200);
  t.is(await lastSeen(), loggedInAt, 'not written within the minute');
  clock.advance(1);
  t.is((await get()).status, 200);
  t.is(await lastSeen(), loggedInAt + minuteMs, 'written once the minute has passed');
  t.is((await get()).status, 200);
  t.is(await lastSeen(), loggedInAt + minuteMs);

  clock.advance(30 * minuteMs - 1);
  t.is((await get()).status, 200, 'the last millisecond of the idle limit');
  const seen = await lastSeen();
  t.is(seen, clock.now());
  clock.advance(30 * minuteMs);
  t.deepEqual(await errorOf(await get()), sessionExpired, 'idle for exactly session_idle');
  t.is(await lastSeen(), seen, 'an expired session is not touched');
});

testOnBackends('absolute expiry: an account session ends at session_max and an admin session at admin_session_max, however busy', async (t, database) => {
  const { url, gateway, clock, account } = await cabinetGateway(t, database, { cabinet: { session_idle: '2h', session_max: '5h', admin_session_max: '3h' } });
  const user = await loginAs(url, gateway.services, { account: account.name });
  const operator = await loginAs(url, gateway.services, { admin: true });
  t.is(operator.session.expires_at, new Date(clock.now() + 3 * hourMs).toISOString());
  t.deepEqual(operator.session.account, null);
  const get = (login: typeof user) => fetch(`${url}/cabinet/api/session`, { headers: { cookie: login.cookie } });
  for (let hour = 1; hour < 3; hour++) {
    clock.advance(hourMs);
    t.is((await get(user)).status, 200);
    t.is((await get(operator)).status, 200);
  }
  clock.advance(hourMs - 1);
  t.is((await get(operator)).status, 200, 'the admin session, its last millisecond');
  clock.advance(1);
  t.deepEqual(await errorOf(await get(operator)), sessionExpired, 'the admin session at 3 h');
  t.is((await get(user)).status, 200);
  clock.advance(hourMs);
  t.is((await get(user)).status, 200);
  clock.advance(hourMs - 1);
  t.is((await get(user)).status, 200, 'the account session, its last millisecond');
  clock.advance(1);
  t.deepEqual(await errorOf(await get(user)), sessionExpired, 'the account session at 5 h');
  t.deepEqual(await errorOf(await fetch(`${url}/probe/account`, { headers: { cookie: user.cookie } })), sessionExpired, 'on the cabinet routes too');
});

testOnBackends('a revoked session is 401 session_required; logout ends the session and clears the cookie (exact)', async (t, database) => {
  const { url, gateway, account } = await cabinetGateway(t, database);
  const first = await loginAs(url, gateway.services, { account: account.name });
  const second = await loginAs(url, gateway.services, { account: account.name });
  const { id: firstId } = (await (await fetch(`${url}/probe/account`, { headers: { cookie: first.cookie } })).json() as any).session;
  await gateway.services.cabinet.sessions.revoke(firstId, 'test:revoker');
  t.deepEqual(await errorOf(await fetch(`${url}/probe/account`, { headers: { cookie: first.cookie } })), sessionRequired);
  t.deepEqual(await errorOf(await fetch(`${url}/cabinet/api/session`, { headers: { cookie: first.cookie } })), sessionRequired);
  const audit = await database.db('audit_log').where({ action: 'session.revoke' });
  t.deepEqual(audit.map((row: any) => [row.actor, row.target, row.account_id, JSON.parse(row.details)]), [['test:revoker', firstId, account.id, { kind: 'account' }]]);

  const refused = await fetch(`${url}/cabinet/api/logout`, { method: 'POST', headers: { cookie: second.cookie } });
  t.deepEqual(await errorOf(refused), csrfInvalid, 'logout is a change: it needs the CSRF token');
  t.is((await fetch(`${url}/cabinet/api/session`, { headers: { cookie: second.cookie } })).status, 200, 'still logged in');
  const logout = await fetch(`${url}/cabinet/api/logout`, { method: 'POST', headers: cabinetHeaders(second) });
  t.is(logout.status, 204);
  t.deepEqual(logout.headers.getSetCookie(), ['gateway_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
  t.deepEqual(await errorOf(await fetch(`${url}/cabinet/api/session`, { headers: { cookie: second.cookie } })), sessionRequired, 'the old cookie opens nothing');
});

testOnBackends('CSRF: a cookie-authenticated change without x-csrf-token, or with a wrong one, is 403 and changes nothing', async (t, database) => {
  const { url, gateway, account, changes } = await cabinetGateway(t, database);
  const login = await loginAs(url, gateway.services, { account: account.name });
  const post = (headers: Record<string, string>) => fetch(`${url}/probe/account`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
  t.deepEqual(await errorOf(await post({ cookie: login.cookie })), csrfInvalid, 'missing');
  t.deepEqual(await errorOf(await post({ cookie: login.cookie, 'x-csrf-token': 'f'.repeat(64) })), csrfInvalid, 'wrong');
  t.deepEqual(await errorOf(await post({ cookie: login.cookie, 'x-csrf-token': login.csrf.slice(0, 63) })), csrfInvalid, 'cut short');
  const other = await loginAs(url, gateway.services, { account: account.name });
  t.deepEqual(await errorOf(await post({ cookie: login.cookie, 'x-csrf-token': other.csrf })), csrfInvalid, "another session's token");
  t.is(changes.count, 0, 'nothing changed');
  const accepted = await post(cabinetHeaders(login));
  t.is(accepted.status, 200);
  t.is(changes.count, 1);
  t.is((await fetch(`${url}/probe/account`, { headers: { cookie: login.cookie } })).status, 200, 'GET needs none');
});

testOnBackends('the kinds are kept apart: an admin session on an account route and an account session on an admin route are 403 forbidden', async (t, database) => {
  const { url, gateway, account, changes } = await cabinetGateway(t, database);
  const user = await loginAs(url, gateway.services, { account: account.name });
  const operator = await loginAs(url, gateway.services, { admin: true });
  const forbiddenAccount = await errorOf(await fetch(`${url}/probe/account`, { headers: { cookie: operator.cookie } }));
  t.deepEqual(forbiddenAccount, { status: 403, code: 'forbidden', type: 'permission_error', message: "This is an account cabinet route; an operator's session cannot use it (the console uses /admin/v1).", param: null });
  t.deepEqual(await errorOf(await fetch(`${url}/probe/account`, { method: 'POST', headers: cabinetHeaders(operator, { 'content-type': 'application/json' }), body: '{}' })), forbiddenAccount);
  const forbiddenAdmin = await errorOf(await fetch(`${url}/probe/admin`, { headers: { cookie: user.cookie } }));
  t.deepEqual(forbiddenAdmin, { status: 403, code: 'forbidden', type: 'permission_error', message: "The admin API needs an operator's session or an admin token; this is an account's session.", param: null });
  t.deepEqual(await errorOf(await fetch(`${url}/probe/admin`, { method: 'POST', headers: cabinetHeaders(user) })), forbiddenAdmin);
  t.is(changes.count, 0);
  // An API key is no session: the cabinet's routes want the cookie.
  const { key } = await gateway.newClient();
  t.deepEqual(await errorOf(await fetch(`${url}/probe/account`, { headers: { authorization: `Bearer ${key}` } })), sessionRequired);
  // A session cookie is no API key: the /v1 routes still want a key.
  const v1 = await fetch(`${url}/v1/history`, { headers: { cookie: user.cookie } });
  t.is(v1.status, 401);
  t.is(((await v1.json()) as any).error.code, 'invalid_api_key');

  const shown = (await (await fetch(`${url}/probe/admin`, { headers: { cookie: operator.cookie } })).json()) as any;
  t.deepEqual(shown, { actor: `cabinet:${shown.session.id}`, session: { id: shown.session.id, kind: 'admin', accountId: null, csrfToken: operator.csrf, userId: null, role: null }, key: null });
  t.regex(shown.session.id, /^ses_/);
  t.deepEqual(await errorOf(await fetch(`${url}/probe/admin`, { method: 'POST', headers: { cookie: operator.cookie } })), csrfInvalid, 'an admin session needs the CSRF token');
  t.is((await fetch(`${url}/probe/admin`, { method: 'POST', headers: cabinetHeaders(operator) })).status, 200);
  t.is(changes.count, 1);
});

testOnBackends('admin tokens: Bearer works without CSRF; a revoked one, an API key or nothing at all is refused', async (t, database) => {
  const { url, gateway, changes } = await cabinetGateway(t, database);
  const { id, token } = await createAdminToken(gateway.services, 'ci');
  t.regex(token, /^gwa_[A-Za-z0-9_-]{43}$/);
  const shown = await fetch(`${url}/probe/admin`, { headers: { authorization: `Bearer ${token}` } });
  t.deepEqual(await shown.json(), { actor: `admin-token:${id}`, session: null, key: null });
  const change = await fetch(`${url}/probe/admin`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  t.is(change.status, 200, 'no CSRF token for a bearer token');
  t.is(changes.count, 1);
  t.is(Number((await database.db('admin_tokens').where({ id }).first()).last_used_at), gateway.services.now());

  const invalid = { status: 401, code: 'admin_token_invalid', type: 'authentication_error', message: 'Invalid admin token: send "Authorization: Bearer gwa_…" with a live token (gateway admin tokens create).', param: null };
  const { key } = await gateway.newClient();
  t.deepEqual(await errorOf(await fetch(`${url}/probe/admin`, { headers: { authorization: `Bearer ${key}` } })), invalid, 'an API key is no admin token');
  t.deepEqual(await errorOf(await fetch(`${url}/probe/admin`, { headers: { authorization: `Bearer gwa_${'x'.repeat(43)}` } })), invalid, 'unknown');
  t.deepEqual(await errorOf(await fetch(`${url}/probe/admin`)), sessionRequired, 'no credentials at all');

  await gateway.services.cabinet.adminTokens.revoke(id, 'test:revoker');
  t.deepEqual(await errorOf(await fetch(`${url}/probe/admin`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })), invalid, 'revoked: refused from the next request');
  t.is(changes.count, 1);
  const audit = await database.db('audit_log').whereIn('action', ['admin_token.create', 'admin_token.revoke']).orderBy('id');
  t.deepEqual(audit.map((row: any) => [row.action, row.actor, row.target, JSON.parse(row.details)]), [
    ['admin_token.create', 'test:cabinet-helper', id, { name: 'ci', scopes: ['read', 'accounts', 'keys', 'money', 'admin'] }],
    ['admin_token.revoke', 'test:revoker', id, { name: 'ci' }],
  ]);
});

testOnBackends('login attempts are limited per address: the 11th in a minute is 429 login_rate_limited, good token or not', async (t, database) => {
  let now = 5_000_000;
  const { url, gateway, account } = await cabinetGateway(t, database, { rateLimiter: new MemoryRateLimiter(() => now) });
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) statuses.push((await postLogin(url, { token: `gwl_${String(i).repeat(43)}` })).status);
  statuses.push((await postLogin(url, { nothing: true })).status);
  t.deepEqual(statuses, [...Array(9).fill(401), 422], 'ten attempts, bad ones counted too');
  const good = await loginLinkToken(gateway.services, { account: account.name });
  const limited = await postLogin(url, { token: good });
  t.deepEqual(await errorOf(limited), { status: 429, code: 'login_rate_limited', type: 'rate_limit_error', message: 'Too many login attempts from this address: 10 per minute. Retry in 6 s.', param: null });
  t.is(limited.headers.get('retry-after'), '6');
  t.is(limited.headers.get('x-should-retry'), 'true');
  now += 6_000;
  t.is((await postLogin(url, { token: good })).status, 200, 'the good link was not spent by the refused attempt');
});

testOnBackends('behind a trusted proxy: the limit is per forwarded client, the session keeps its address, X-Forwarded-Proto https makes the cookie Secure', async (t, database) => {
  const now = 5_000_000;
  const { url, gateway, account } = await cabinetGateway(t, database, { rateLimiter: new MemoryRateLimiter(() => now), trustedProxies: ['127.0.0.1'], cabinet: { login_attempts_per_minute: 1 } });
  const from = (client: string, body: unknown, proto = 'http') =>
    fetch(`${url}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client, 'x-forwarded-proto': proto }, body: JSON.stringify(body) });
  t.is((await from('203.0.113.7', { token: 'x' })).status, 401);
  t.is((await from('203.0.113.7', { token: 'x' })).status, 429, 'that client has used its one attempt');
  const token = await loginLinkToken(gateway.services, { account: account.name });
  const other = await from('198.51.100.9', { token }, 'https');
  t.is(other.status, 200, 'another client has its own allowance');
  t.regex(other.headers.getSetCookie()[0]!, /; SameSite=Strict; Secure; Max-Age=/, 'the proxy says the client came over TLS');
  t.is((await database.db('cabinet_sessions').first()).address, '198.51.100.9');
});

testOnBackends('the cookie is Secure when cabinet.public_url is https', async (t, database) => {
  const { url, gateway, account, clock } = await cabinetGateway(t, database, { cabinet: { public_url: 'https://gateway.example.com/', session_max: '1d' } });
  const { token, url: link } = await gateway.services.cabinet.links.create({ kind: 'account', accountId: account.id, actor: 'test' });
  t.is(link, `https://gateway.example.com/cabinet/login#token=${token}`);
  const response = await postLogin(url, { token });
  const cookie = response.headers.getSetCookie()[0]!;
  t.is(cookie.replace(/gws_[A-Za-z0-9_-]{43}/, 'gws_…'), `gateway_session=gws_…; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=86400; Expires=${new Date(clock.now() + dayMs).toUTCString()}`);
  const login = { cookie: cookie.split(';')[0]!, csrf: ((await response.json()) as any).csrf_token };
  const logout = await fetch(`${url}/cabinet/api/logout`, { method: 'POST', headers: { cookie: login.cookie, 'x-csrf-token': login.csrf } });
  t.deepEqual(logout.headers.getSetCookie(), ['gateway_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
});

testOnBackends("an account session acts through the account's cabinet key: made on first need, kept, made again after a revocation", async (t, database) => {
  const { url, gateway, account } = await cabinetGateway(t, database);
  const login = await loginAs(url, gateway.services, { account: account.name });
  t.deepEqual(await database.db('api_keys').where({ account_id: account.id }), [], 'no key before the first cabinet request');
  const first = (await (await fetch(`${url}/probe/account`, { headers: { cookie: login.cookie } })).json()) as any;
  t.deepEqual(first.key, { id: first.key.id, name: 'cabinet', purpose: 'cabinet' });
  t.deepEqual(first.session, { id: first.session.id, kind: 'account', accountId: account.id, csrfToken: login.csrf, userId: null, role: 'owner' });
  t.is(first.actor, `cabinet:${first.session.id}`);
  const again = (await (await fetch(`${url}/probe/account`, { headers: { cookie: login.cookie } })).json()) as any;
  t.is(again.key.id, first.key.id, 'the same key');
  await gateway.services.apiKeys.flushLastUsed();
  t.is((await gateway.services.apiKeys.find(first.key.id)).lastUsedAt, gateway.services.now(), 'its last use recorded, like any key');
  const keys = await gateway.services.apiKeys.list(account.id);
  t.deepEqual(keys.map((key) => [key.id, key.name, key.purpose, [...key.scopes].sort()]), [[first.key.id, 'cabinet', 'cabinet', [...allScopes].sort()]]);
  await gateway.services.apiKeys.revoke(first.key.id);
  const renewed = (await (await fetch(`${url}/probe/account`, { headers: { cookie: login.cookie } })).json()) as any;
  t.not(renewed.key.id, first.key.id, 'a new one after the revocation');
  t.is((await gateway.services.apiKeys.list(account.id)).filter((key) => key.revokedAt === null).length, 1);

  // Two first requests at once on another account make one key.
  const other = await gateway.services.accounts.create(`cabinet-other-${Math.random().toString(36).slice(2, 8)}`);
  const otherLogin = await loginAs(url, gateway.services, { account: other.id });
  const both = await Promise.all([1, 2, 3].map(async () => ((await (await fetch(`${url}/probe/account`, { headers: { cookie: otherLogin.cookie } })).json()) as any).key.id));
  t.is(new Set(both).size, 1);

  await gateway.services.accounts.setDisabled(account.id, true, { reason: 'test', actor: 'test' });
  const disabled = await errorOf(await fetch(`${url}/probe/account`, { headers: { cookie: login.cookie } }));
  t.deepEqual(disabled, { status: 403, code: 'account_disabled', type: 'permission_error', message: 'This account is disabled. Contact the gateway operator.', param: null });
  const token = await loginLinkToken(gateway.services, { account: account.id });
  t.deepEqual(await errorOf(await postLogin(url, { token })), disabled, 'no login into a disabled account');
  t.is(Number((await database.db('login_links').whereNull('used_at').count({ n: '*' }).first())!.n), 1, 'and its link stays unused');
});

testOnBackends('GET / redirects to the cabinet page', async (t, database) => {
  const { url } = await cabinetGateway(t, database);
  const response = await fetch(`${url}/`, { redirect: 'manual' });
  t.is(response.status, 302);
  t.is(response.headers.get('location'), '/cabinet/');
});
