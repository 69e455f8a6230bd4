// Email and password accounts through HTTP, on both databases, with a real SMTP server the test
// reads (issue 31): sign-up, the verification link, login; nobody learns from an answer which
// addresses have an account (sign-up and reset of known and unknown addresses answer alike);
// email links are single-use and expire on the injected clock; a password change ends the
// other sessions, a reset all of them; an email changes only once the new address's link is
// followed; eleven wrong passwords in a minute get 429 and the right one is refused until the
// window passes (per address and per email); the sign-up modes; serve refuses an unset SMTP
// variable, and without email the page is told there is no password login.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { MemoryRateLimiter } from '../../src/auth/rate-limiter.js';
import { ConfigError } from '../../src/config/load.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { testClock, type TestClock } from '../helpers/clock.js';
import { capturedLogger, exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

const minuteMs = 60_000;

async function passwordGateway(
  t: ExecutionContext,
  database: TestDatabase,
  options: { cabinet?: Record<string, unknown>; rateLimiter?: MemoryRateLimiter; clock?: TestClock; trustedProxies?: string[]; email?: boolean } = {},
) {
  const clock = options.clock ?? testClock();
  const smtp = await startSmtpServer(t);
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    raw: {
      ...raw,
      server: { ...raw.server, trusted_proxies: options.trustedProxies ?? [] },
      cabinet: { signup: 'open', signup_bonus: '25.00', public_url: 'https://gateway.example.com', login_attempts_per_minute: 1000, login_attempts_per_email_per_minute: 1000, ...options.cabinet },
      ...(options.email === false ? {} : { email: { smtp_url_env: 'TEST_SMTP_URL', from: 'Gateway <gateway@example.com>' } }),
    },
    env: { TEST_SMTP_URL: smtp.url },
    now: clock.now,
    rateLimiter: options.rateLimiter,
  });
  const url = gateway.url;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { gateway, url, smtp, clock, post };
}

async function answerOf(response: Response): Promise<{ status: number; body: any }> {
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

const errorBody = (code: string, type: string, message: string, param: string | null = null) => ({ error: { message, type, param, code } });
const loginFailed = { status: 401, body: errorBody('login_failed', 'authentication_error', 'The email or password is wrong.') };
const linkInvalid = { status: 400, body: errorBody('email_link_invalid', 'invalid_request_error', 'This link is invalid, expired or already used. Ask for a new one.', 'token') };
const sessionRequired = {
  status: 401,
  body: errorBody('session_required', 'authentication_error', 'Log in to the cabinet first: this request has no live session. Sign in on the login page (/cabinet/login), or ask the operator for a login link.'),
};

/** A browser's login: the cookie and the CSRF token. */
async function logIn(post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<Response>, email: string, password: string, headers: Record<string, string> = {}) {
  const response = await post('/cabinet/api/login/password', { email, password }, headers);
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as any;
  return { cookie: response.headers.getSetCookie()[0]!.split(';')[0]!, csrf: body.csrf_token as string, body };
}

/** Signs up and follows the verification link; the user can log in after. */
async function signedUp(post: (path: string, body: unknown) => Promise<Response>, smtp: TestSmtpServer, email: string, password: string) {
  t_is((await post('/cabinet/api/signup', { email, password, locale: 'en' })).status, 202);
  const { token } = linkIn(await smtp.nextTo(email));
  t_is((await post('/cabinet/api/verify-email', { token })).status, 200);
}
function t_is(actual: unknown, expected: unknown): void {
  if (actual !== expected) throw new Error(`expected ${String(expected)}, got ${String(actual)}`);
}

const sessionOf = (url: string, cookie: string) => fetch(`${url}/cabinet/api/session`, { headers: { cookie } }).then(answerOf);

testOnBackends('sign-up by email: 202, a verification link in English, no login before it is followed, then a session of the new account with its bonus; the link works once', async (t, database) => {
  const { url, smtp, post, clock, gateway } = await passwordGateway(t, database);
  const email = 'Stranger@Example.com';
  const signup = await answerOf(await post('/cabinet/api/signup', { email, password: 'correct horse battery', locale: 'en' }));
  t.deepEqual(signup, { status: 202, body: { accepted: true } });
  const message = await smtp.nextTo('stranger@example.com');
  t.is(message.subject, 'Confirm your email address');
  const link = linkIn(message);
  t.is(link.url, `https://gateway.example.com/cabinet/verify#token=${link.token}`);
  t.true(message.text.includes('The link works once, for 1 hour.'));

  const user = await database.db('users').first();
  t.like(user, { email: 'stranger@example.com', email_verified_at: null, locale: 'en' });
  t.regex(user.password_hash, /^scrypt\$N=32768,r=8,p=1\$[\w-]{22}\$[\w-]{43}$/);

  // The right password before the link: told so, and sent a fresh link; the wrong one: the usual answer.
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email, password: 'correct horse battery' })), {
    status: 403,
    body: errorBody('email_not_verified', 'permission_error', 'This email address is not confirmed yet: we sent a new confirmation link to it. Follow it, then sign in.'),
  });
  t.is(linkIn(await smtp.nextTo('stranger@example.com', 2)).path, '/cabinet/verify');
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email, password: 'wrong horse battery' })), loginFailed);

  clock.advance(minuteMs);
  t.deepEqual(await answerOf(await post('/cabinet/api/verify-email', { token: link.token })), { status: 200, body: { purpose: 'verify_email', email: 'stranger@example.com' } });
  t.deepEqual(await answerOf(await post('/cabinet/api/verify-email', { token: link.token })), linkInvalid, 'a link works once');
  t.is(Number((await database.db('users').first()).email_verified_at), clock.now());

  const login = await logIn(post, 'stranger@example.com', 'correct horse battery');
  const membership = await database.db('account_members').first();
  t.deepEqual(login.body, {
    kind: 'account',
    account: { id: membership.account_id, name: 'stranger@example.com' },
    user: { id: user.id },
    role: 'owner',
    accounts: [{ id: membership.account_id, name: 'stranger@example.com', role: 'owner' }],
    method: 'password',
    csrf_token: login.csrf,
    expires_at: new Date(clock.now() + 7 * 24 * 60 * minuteMs).toISOString(),
  });
  t.is((await sessionOf(url, login.cookie)).status, 200);
  t.is((await gateway.services.accounts.find(membership.account_id)).balanceUnits, 250_000n, 'cabinet.signup_bonus, as a bonus row');

  // A login from a browser that holds a session renews the id: the old cookie is ended.
  const again = await logIn(post, 'stranger@example.com', 'correct horse battery', { cookie: login.cookie });
  t.not(again.cookie, login.cookie);
  t.deepEqual(await sessionOf(url, login.cookie), sessionRequired);
  t.is((await sessionOf(url, again.cookie)).status, 200);

  const audit = await database.db('audit_log').whereLike('action', 'user.%').orderBy('id').select('action', 'target', 'details');
  t.deepEqual(
    audit.map((row: any) => row.action),
    ['user.signup', 'user.login_failed', 'user.login_failed', 'user.verify_email', 'user.login', 'user.login'],
  );
  t.deepEqual(JSON.parse(audit[1].details), { address: '127.0.0.1', method: 'password', reason: 'email_not_verified' });
  t.deepEqual(JSON.parse(audit[2].details), { address: '127.0.0.1', method: 'password', reason: 'wrong_password' });
  t.false(JSON.stringify(audit).includes('horse'), 'no password in the audit log');
});

testOnBackends('no enumeration: sign-up and reset of a known address answer as for an unknown one; the known address gets a notice, not a link; a wrong password and an unknown email get one answer', async (t, database) => {
  const { smtp, post } = await passwordGateway(t, database);
  await signedUp(post, smtp, 'known@example.com', 'the first password');
  const again = await answerOf(await post('/cabinet/api/signup', { email: 'known@example.com', password: 'another password', locale: 'ru' }));
  const fresh = await answerOf(await post('/cabinet/api/signup', { email: 'fresh@example.com', password: 'another password', locale: 'ru' }));
  t.deepEqual(again, fresh);
  t.deepEqual(again, { status: 202, body: { accepted: true } });
  const notice = await smtp.nextTo('known@example.com', 2);
  t.is(notice.subject, 'Someone tried to sign up with your address', "in the known user's language (en), not the request's");
  t.true(notice.text.includes('https://gateway.example.com/cabinet/forgot'));
  t.false(/gwe_/.test(notice.text), 'no link that signs anyone in');
  t.is((await smtp.nextTo('fresh@example.com')).subject, 'Подтвердите адрес почты', 'the new user asked for Russian');
  t.is(Number((await database.db('users').count({ n: '*' }).first())!.n), 2);

  const resetKnown = await answerOf(await post('/cabinet/api/password-reset', { email: 'known@example.com' }));
  const resetUnknown = await answerOf(await post('/cabinet/api/password-reset', { email: 'nobody@example.com' }));
  t.deepEqual(resetKnown, { status: 202, body: { accepted: true } });
  t.deepEqual(resetUnknown, resetKnown);
  t.is((await smtp.nextTo('known@example.com', 3)).subject, 'Reset your password');

  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email: 'known@example.com', password: 'not the password' })), loginFailed);
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email: 'nobody@example.com', password: 'the first password' })), loginFailed);
  t.deepEqual(
    smtp.messages.map((message) => message.to).sort(),
    ['fresh@example.com', 'known@example.com', 'known@example.com', 'known@example.com'],
    'nothing went to the unknown address',
  );
  const failed = await database.db('audit_log').where({ action: 'user.login_failed' }).orderBy('id');
  t.regex(failed[1].target, /^email:[0-9a-f]{16}$/, 'an unknown address: a digest, not the address');
  t.false(JSON.stringify(failed).includes('nobody@'));
});

testOnBackends('email links expire on the injected clock: the last millisecond still opens, the next does not', async (t, database) => {
  const { smtp, post, clock } = await passwordGateway(t, database, { cabinet: { email_link_ttl: '30m' } });
  await post('/cabinet/api/signup', { email: 'early@example.com', password: 'password number one' });
  await post('/cabinet/api/signup', { email: 'late@example.com', password: 'password number two' });
  const early = linkIn(await smtp.nextTo('early@example.com'));
  const late = linkIn(await smtp.nextTo('late@example.com'));
  t.true((await smtp.nextTo('early@example.com')).text.includes('The link works once, for 30 minutes.'));
  clock.advance(30 * minuteMs - 1);
  t.is((await post('/cabinet/api/verify-email', { token: early.token })).status, 200);
  clock.advance(1);
  t.deepEqual(await answerOf(await post('/cabinet/api/verify-email', { token: late.token })), linkInvalid);
  t.deepEqual(await answerOf(await post('/cabinet/api/verify-email', { token: 'gwe_not-a-token' })), linkInvalid, 'a malformed one: the same answer');
});

testOnBackends('a password reset sets the new password and ends every session of the user; its link works once, and a newer link voids the older', async (t, database) => {
  const { url, smtp, post } = await passwordGateway(t, database);
  await signedUp(post, smtp, 'reset@example.com', 'the old password');
  const first = await logIn(post, 'reset@example.com', 'the old password');
  const second = await logIn(post, 'reset@example.com', 'the old password');
  await post('/cabinet/api/password-reset', { email: 'reset@example.com' });
  const older = linkIn(await smtp.nextTo('reset@example.com', 2));
  await post('/cabinet/api/password-reset', { email: 'reset@example.com' });
  const newer = linkIn(await smtp.nextTo('reset@example.com', 3));
  t.is(newer.url, `https://gateway.example.com/cabinet/reset#token=${newer.token}`);
  t.deepEqual(await answerOf(await post('/cabinet/api/password-reset/confirm', { token: older.token, password: 'the new password' })), linkInvalid, 'voided by the newer link');
  t.deepEqual(await answerOf(await post('/cabinet/api/password-reset/confirm', { token: newer.token, password: 'short' })), {
    status: 422,
    body: {
      detail: [{ loc: ['body', 'password'], msg: 'String should have at least 10 characters', type: 'string_too_short', input: 'short', ctx: { min_length: 10 } }],
      error: { message: 'body.password: String should have at least 10 characters', type: 'invalid_request_error', param: 'password', code: 'validation_error' },
    },
  });
  t.deepEqual(await answerOf(await post('/cabinet/api/password-reset/confirm', { token: newer.token, password: 'the new password' })), { status: 204, body: null });
  t.deepEqual(await answerOf(await post('/cabinet/api/password-reset/confirm', { token: newer.token, password: 'the third password' })), linkInvalid, 'once');
  t.deepEqual(await sessionOf(url, first.cookie), sessionRequired);
  t.deepEqual(await sessionOf(url, second.cookie), sessionRequired);
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email: 'reset@example.com', password: 'the old password' })), loginFailed);
  await logIn(post, 'reset@example.com', 'the new password');
  const audit = await database.db('audit_log').where({ action: 'user.password_reset' }).first();
  t.deepEqual(JSON.parse(audit.details), { sessions_ended: 2 });
  t.is(await database.db('audit_log').where({ action: 'user.password_reset_request' }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 2);
});

testOnBackends('a password change needs the current password and ends the OTHER sessions of the user, keeping the one that made it', async (t, database) => {
  const { url, smtp, post } = await passwordGateway(t, database);
  await signedUp(post, smtp, 'change@example.com', 'the old password');
  const here = await logIn(post, 'change@example.com', 'the old password');
  const elsewhere = await logIn(post, 'change@example.com', 'the old password');
  const headers = { cookie: here.cookie, 'x-csrf-token': here.csrf };
  t.deepEqual(await answerOf(await post('/cabinet/api/password', { current: 'not the password', new: 'the new password' }, headers)), {
    status: 403,
    body: errorBody('current_password_wrong', 'permission_error', 'The current password is wrong. Nothing was changed.', 'password'),
  });
  t.is((await sessionOf(url, elsewhere.cookie)).status, 200, 'a refused change ends nothing');
  t.is((await post('/cabinet/api/password', { current: 'the old password', new: 'the new password' }, { cookie: here.cookie })).status, 403, 'CSRF as on every change');
  t.deepEqual(await answerOf(await post('/cabinet/api/password', { current: 'the old password', new: 'the new password' }, headers)), { status: 200, body: { sessions_ended: 1 } });
  t.is((await sessionOf(url, here.cookie)).status, 200);
  t.deepEqual(await sessionOf(url, elsewhere.cookie), sessionRequired);
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email: 'change@example.com', password: 'the old password' })), loginFailed);
  await logIn(post, 'change@example.com', 'the new password');
});

testOnBackends('an email change: the link goes to the new address, and the address changes only when it is followed', async (t, database) => {
  const { smtp, post, gateway } = await passwordGateway(t, database);
  await signedUp(post, smtp, 'old@example.com', 'my password is long');
  await signedUp(post, smtp, 'taken@example.com', 'another long password');
  const login = await logIn(post, 'old@example.com', 'my password is long');
  const headers = { cookie: login.cookie, 'x-csrf-token': login.csrf };
  t.is((await post('/cabinet/api/email', { email: 'new@example.com', password: 'not my password' }, headers)).status, 403);
  t.deepEqual(await answerOf(await post('/cabinet/api/email', { email: 'New@Example.com', password: 'my password is long' }, headers)), { status: 202, body: { accepted: true } });
  t.deepEqual(await answerOf(await post('/cabinet/api/email', { email: 'taken@example.com', password: 'my password is long' }, headers)), { status: 202, body: { accepted: true } }, 'a taken address: the same answer');
  t.is((await smtp.nextTo('taken@example.com', 2)).subject, 'Someone tried to sign up with your address');
  const message = await smtp.nextTo('new@example.com');
  t.is(message.subject, 'Confirm your new email address');
  const link = linkIn(message);
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email: 'new@example.com', password: 'my password is long' })), loginFailed, 'not before the link is followed');
  t.is((await database.db('users').where({ email: 'old@example.com' }).count({ n: '*' }).first().then((row: any) => Number(row.n))), 1);
  t.deepEqual(await answerOf(await post('/cabinet/api/verify-email', { token: link.token })), { status: 200, body: { purpose: 'change_email', email: 'new@example.com' } });
  await logIn(post, 'new@example.com', 'my password is long');
  t.deepEqual(await answerOf(await post('/cabinet/api/login/password', { email: 'old@example.com', password: 'my password is long' })), loginFailed);
  t.is(await database.db('audit_log').where({ action: 'user.email_change' }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 1);
  // An operator's link session has no user: nothing to change.
  const account = await gateway.services.accounts.create('link-only');
  const { token } = await gateway.services.cabinet.links.create({ kind: 'account', accountId: account.id, actor: 'test' });
  const linked = await post('/cabinet/api/login', { token });
  const linkHeaders = { cookie: linked.headers.getSetCookie()[0]!.split(';')[0]!, 'x-csrf-token': ((await linked.json()) as any).csrf_token };
  t.is((await answerOf(await post('/cabinet/api/password', { current: 'whatever', new: 'whatever else' }, linkHeaders))).body.error.code, 'forbidden');
});

testOnBackends('brute force: eleven wrong passwords in a minute get 429, and the right password is refused until the window passes (per address, and per email from many addresses)', async (t, database) => {
  let now = 7_000_000;
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const { smtp, post } = await passwordGateway(t, database, {
    clock,
    rateLimiter: new MemoryRateLimiter(() => now),
    trustedProxies: ['127.0.0.1'],
    cabinet: { login_attempts_per_minute: 10, login_attempts_per_email_per_minute: 10 },
  });
  await signedUp(post, smtp, 'victim@example.com', 'the right password');
  // Sign-up and verification came from 127.0.0.1; the attacks come through the proxy.
  const from = (client: string, password: string) => post('/cabinet/api/login/password', { email: 'victim@example.com', password }, { 'x-forwarded-for': client });
  for (let attempt = 1; attempt <= 10; attempt++) t.deepEqual(await answerOf(await from('203.0.113.7', `wrong password ${attempt}`)), loginFailed, `attempt ${attempt}`);
  const limited = await from('203.0.113.7', 'wrong password 11');
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '6');
  t.deepEqual((await limited.json()) as any, errorBody('login_rate_limited', 'rate_limit_error', 'Too many login attempts from this address: 10 per minute. Retry in 6 s.'));
  t.is((await from('203.0.113.7', 'the right password')).status, 429, 'the right password is refused too');
  // Another address: the email's own limit is spent as well.
  const elsewhere = await from('198.51.100.9', 'the right password');
  t.is(elsewhere.status, 429);
  t.deepEqual((await elsewhere.json()) as any, errorBody('login_rate_limited', 'rate_limit_error', 'Too many login attempts for this email: 10 per minute. Retry in 6 s.'));
  clock.advance(6_000 - 1);
  t.is((await from('198.51.100.9', 'the right password')).status, 429, 'one millisecond early');
  clock.advance(1);
  t.is((await from('198.51.100.9', 'the right password')).status, 200, 'the window has passed');
  t.is(await database.db('audit_log').where({ action: 'user.login_failed' }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 10, 'refused attempts never reached the password');
});

testOnBackends('sign-up modes: closed refuses, invite needs a code that works once (refused alike for known and unknown addresses), open needs none', async (t, database) => {
  const closed = await passwordGateway(t, database, { cabinet: { signup: 'closed' } });
  t.deepEqual(await answerOf(await closed.post('/cabinet/api/signup', { email: 'a@example.com', password: 'long enough password' })), {
    status: 403,
    body: errorBody('signup_closed', 'permission_error', 'Sign-up is closed on this gateway. Ask the operator for an account.'),
  });
  await closed.gateway.stop();

  const invite = await passwordGateway(t, database, { cabinet: { signup: 'invite' } });
  const [{ code }] = await invite.gateway.services.users.invites.create({ count: 1, expiresAt: null, actor: 'test' });
  t.deepEqual(await answerOf(await invite.post('/cabinet/api/signup', { email: 'a@example.com', password: 'long enough password' })), {
    status: 403,
    body: errorBody('invite_required', 'permission_error', 'Sign-up on this gateway needs an invite code.', 'invite_code'),
  });
  const invalid = { status: 403, body: errorBody('invite_invalid', 'permission_error', 'This invite code is invalid, expired or already used.', 'invite_code') };
  t.deepEqual(await answerOf(await invite.post('/cabinet/api/signup', { email: 'a@example.com', password: 'long enough password', invite_code: `gwi_${'x'.repeat(43)}` })), invalid);
  t.deepEqual(await answerOf(await invite.post('/cabinet/api/signup', { email: 'a@example.com', password: 'long enough password', invite_code: code })), { status: 202, body: { accepted: true } });
  t.deepEqual(await answerOf(await invite.post('/cabinet/api/signup', { email: 'b@example.com', password: 'long enough password', invite_code: code })), invalid, 'a code works once');
  t.deepEqual(await answerOf(await invite.post('/cabinet/api/signup', { email: 'a@example.com', password: 'long enough password', invite_code: code })), invalid, 'a known address: the same refusal');
  t.is(Number((await database.db('users').count({ n: '*' }).first())!.n), 1);
});

testOnBackends('without email: the login options offer no password, and sign-up says it is unavailable; serve refuses an unset SMTP variable, naming it', async (t, database) => {
  const { url, post } = await passwordGateway(t, database, { email: false });
  t.deepEqual(await (await fetch(`${url}/cabinet/api/login-options`)).json(), { signup: 'open', password: false, oidc: [], telegram: null });
  t.deepEqual(await answerOf(await post('/cabinet/api/signup', { email: 'a@example.com', password: 'long enough password' })), {
    status: 403,
    body: errorBody('email_unavailable', 'permission_error', 'Sign-up and password reset by email are not available on this gateway. Ask the operator for a login link.'),
  });
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const refused = await t.throwsAsync(startGateway(t, database, { raw: { ...raw, email: { smtp_url_env: 'UNSET_SMTP_URL_FOR_TEST', from: 'gateway@example.com' } } }), { instanceOf: ConfigError });
  t.true(refused!.message.includes("email.smtp_url_env names UNSET_SMTP_URL_FOR_TEST, which is not set in this process's environment"));
});

testOnBackends('serve logs once at start that email sign-up is unavailable when email is not configured, and says nothing of it when it is', async (t, database) => {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const without = capturedLogger();
  await startGateway(t, database, { raw, logger: without.logger });
  const unavailable = 'email is not configured: sign-up, password login and password reset by email are unavailable (docs/configuration.md, "Email")';
  t.deepEqual(without.lines.filter((line) => line.msg === unavailable).map((line) => line.level), [30]);
  const smtp = await startSmtpServer(t);
  const configured = capturedLogger();
  await startGateway(t, database, { raw: { ...raw, email: { smtp_url_env: 'TEST_SMTP_URL', from: 'gateway@example.com' } }, env: { TEST_SMTP_URL: smtp.url }, logger: configured.logger });
  t.deepEqual(configured.lines.filter((line) => /email/.test(String(line.msg))), []);
  t.false(JSON.stringify(configured.lines).includes(smtp.url), 'the SMTP URL is never logged');
});
