// OpenID Connect login (issue 31) against a real local provider (oidc-provider, started here),
// driven over HTTP as a browser does: the gateway's start redirects to the provider, whose login
// and consent redirect back to the gateway's callback, which opens a session and redirects to
// the cabinet. On both databases: a second login finds the same user; an existing user is linked
// only through a verified email; a callback replayed, or from another browser, is refused;
// closed and invite sign-up modes hold; serve refuses to start without the client secret.
import type { ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { countRun, createTestDatabase, needing, redisUrl, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { testClock, type TestClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { RedirectBrowser, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';

interface Setup {
  readonly gateway: TestGateway;
  readonly provider: TestOidcProvider;
  readonly clock: TestClock;
}

function configWith(provider: { issuer: string; clientId: string }, signup: 'closed' | 'invite' | 'open', loginAttemptsPerMinute = 10) {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  raw.cabinet = { ...raw.cabinet, signup, login_attempts_per_minute: loginAttemptsPerMinute, oidc: [{ name: 'local', label: 'Local ID', issuer: provider.issuer, client_id: provider.clientId, client_secret_env: 'TEST_OIDC_SECRET' }] };
  return raw;
}

async function setUp(t: ExecutionContext, database: TestDatabase, signup: 'closed' | 'invite' | 'open'): Promise<Setup> {
  const provider = await startOidcProvider(t);
  // Running: the ID token's times are checked against the real clock, the gateway's own deadlines against this one.
  const clock = testClock({ running: true });
  const gateway = await startGateway(t, database, { raw: configWith(provider, signup), env: { TEST_OIDC_SECRET: provider.clientSecret }, now: clock.now });
  provider.register(`${gateway.url}/cabinet/api/oidc/local/callback`);
  provider.accounts.set('alice', { email: 'Alice@Example.com', email_verified: true, name: 'Alice' });
  return { gateway, provider, clock };
}

/** A whole login in a new browser: start (with `query`) → provider → callback. Where it ended and the browser. */
async function logIn(setup: Setup, account: string, query = '') {
  setup.provider.nextLogin = account;
  const browser = new RedirectBrowser();
  const { location, hops } = await browser.follow(`${setup.gateway.url}/cabinet/api/oidc/local/start${query}`, setup.gateway.url);
  return { browser, location, hops, session: browser.cookie(setup.gateway.url, 'gateway_session') };
}

async function sessionOf(gateway: TestGateway, cookie: string | undefined) {
  const response = await fetch(`${gateway.url}/cabinet/api/session`, { headers: { cookie: `gateway_session=${cookie}` } });
  return { status: response.status, body: (await response.json()) as any };
}

const count = async (gateway: TestGateway, table: string, where: Record<string, unknown> = {}) => Number(((await gateway.services.db(table).where(where).count({ n: '*' }).first()) as { n: number | string }).n);

testOnBackends('OIDC: a stranger logs in through the provider and lands in a new account; a second login finds the same user', async (t, database) => {
  const setup = await setUp(t, database, 'open');
  const first = await logIn(setup, 'alice');
  t.is(first.location, `${setup.gateway.url}/cabinet/`);
  // It went through the provider's authorization endpoint with PKCE S256, a state and a nonce.
  const authorization = new URL(first.hops[1]!);
  t.is(authorization.origin, setup.provider.issuer);
  t.is(authorization.searchParams.get('code_challenge_method'), 'S256');
  t.is(authorization.searchParams.get('redirect_uri'), `${setup.gateway.url}/cabinet/api/oidc/local/callback`);
  t.truthy(authorization.searchParams.get('state'));
  t.truthy(authorization.searchParams.get('nonce'));
  t.is(authorization.searchParams.get('scope'), 'openid email profile');
  // The state cookie is gone once the callback ran.
  t.is(first.browser.cookie(setup.gateway.url, 'gateway_oidc'), undefined);
  const session = await sessionOf(setup.gateway, first.session);
  t.is(session.status, 200);
  t.is(session.body.kind, 'account');
  t.is(session.body.method, 'oidc');
  t.is(session.body.role, 'owner');
  const userId = session.body.user.id as string;
  const user = await setup.gateway.services.users.users.find(userId);
  t.is(user.email, 'alice@example.com');
  t.not(user.emailVerifiedAt, null);
  t.is(user.name, 'Alice');
  t.is(session.body.account.name, 'alice@example.com');
  t.is(await count(setup.gateway, 'user_identities', { provider: 'oidc:local', subject: 'alice', user_id: userId }), 1);

  const second = await logIn(setup, 'alice');
  t.is(second.location, `${setup.gateway.url}/cabinet/`);
  t.not(second.session, first.session, 'a new session (new cookie) at each login');
  const again = await sessionOf(setup.gateway, second.session);
  t.is(again.body.user.id, userId);
  t.is(again.body.account.id, session.body.account.id);
  t.is(await count(setup.gateway, 'users'), 1);
  t.is(await count(setup.gateway, 'accounts', { name: 'alice@example.com' }), 1);
  t.is(await count(setup.gateway, 'audit_log', { action: 'user.signup', target: userId }), 1);
  t.is(await count(setup.gateway, 'audit_log', { action: 'identity.link', target: userId }), 1);
  t.is(await count(setup.gateway, 'audit_log', { action: 'user.login', target: userId }), 2);
});

testOnBackends('OIDC: an existing user is linked only through a verified email; an unverified claim of their address makes a user of its own, without the address', async (t, database) => {
  const setup = await setUp(t, database, 'open');
  const { user: bob } = await setup.gateway.services.users.signUps.signUp({ email: 'bob@example.com', emailVerified: true, passwordHash: null, name: 'Bob', locale: 'en' });
  setup.provider.accounts.set('mallory', { email: 'bob@example.com', email_verified: false, name: 'Not Bob' });
  setup.provider.accounts.set('bob-at-provider', { email: 'BOB@example.com', email_verified: true, name: 'Bob' });

  const unverified = await logIn(setup, 'mallory');
  t.is(unverified.location, `${setup.gateway.url}/cabinet/`);
  const mallory = await sessionOf(setup.gateway, unverified.session);
  t.not(mallory.body.user.id, bob.id);
  t.is((await setup.gateway.services.users.users.find(mallory.body.user.id)).email, null);
  t.is(await count(setup.gateway, 'user_identities', { user_id: bob.id }), 0);

  const verified = await logIn(setup, 'bob-at-provider');
  const linked = await sessionOf(setup.gateway, verified.session);
  t.is(linked.body.user.id, bob.id);
  t.is(await count(setup.gateway, 'user_identities', { user_id: bob.id, provider: 'oidc:local', subject: 'bob-at-provider' }), 1);
  t.is(await count(setup.gateway, 'audit_log', { action: 'identity.link', target: bob.id }), 1);
  t.is(await count(setup.gateway, 'users'), 2);
});

testOnBackends('OIDC: a callback from another browser is refused without spending the login; a replayed callback is refused', async (t, database) => {
  const setup = await setUp(t, database, 'open');
  setup.provider.nextLogin = 'alice';
  const browser = new RedirectBrowser();
  // Up to the provider's redirect back to the gateway (not followed).
  let next = `${setup.gateway.url}/cabinet/api/oidc/local/start`;
  for (;;) {
    const response = await browser.get(next);
    next = new URL(response.headers.get('location')!, next).href;
    if (next.startsWith(`${setup.gateway.url}/cabinet/api/oidc/local/callback`)) break;
  }
  const stateCookie = browser.cookie(setup.gateway.url, 'gateway_oidc')!;
  t.truthy(stateCookie);

  const stranger = await new RedirectBrowser().get(next);
  t.is(stranger.status, 302);
  t.is(stranger.headers.get('location'), '/cabinet/login?login_error=login_expired');

  const real = await browser.get(next);
  t.is(real.status, 302);
  t.is(real.headers.get('location'), '/cabinet/');
  t.truthy(browser.cookie(setup.gateway.url, 'gateway_session'));

  // The same callback and the same state cookie again: the state (and its nonce) worked once.
  const replay = new RedirectBrowser();
  replay.setCookie(setup.gateway.url, 'gateway_oidc', stateCookie);
  const replayed = await replay.get(next);
  t.is(replayed.status, 302);
  t.is(replayed.headers.get('location'), '/cabinet/login?login_error=login_expired');
  t.is(replay.cookie(setup.gateway.url, 'gateway_session'), undefined);
  t.is(await count(setup.gateway, 'cabinet_sessions'), 1);
});

testOnBackends('OIDC: with sign-up closed a stranger is refused (nothing made), and an unknown provider is too', async (t, database) => {
  const setup = await setUp(t, database, 'closed');
  const refused = await logIn(setup, 'alice');
  t.is(refused.location, `${setup.gateway.url}/cabinet/login?login_error=signup_closed`);
  t.is(refused.session, undefined);
  t.is(await count(setup.gateway, 'users'), 0);
  t.is(await count(setup.gateway, 'accounts'), 0);
  const unknown = await fetch(`${setup.gateway.url}/cabinet/api/oidc/nobody/start`, { redirect: 'manual' });
  t.is(unknown.status, 302);
  t.is(unknown.headers.get('location'), '/cabinet/login?login_error=provider_unknown');
});

testOnBackends('OIDC: starts are limited per client address (cabinet.login_attempts_per_minute)', async (t, database) => {
  const provider = await startOidcProvider(t);
  const gateway = await startGateway(t, database, { raw: configWith(provider, 'open', 2), env: { TEST_OIDC_SECRET: provider.clientSecret } });
  provider.register(`${gateway.url}/cabinet/api/oidc/local/callback`);
  const start = async () => (await fetch(`${gateway.url}/cabinet/api/oidc/local/start`, { redirect: 'manual' })).headers.get('location')!;
  t.true((await start()).startsWith(`${provider.issuer}/`));
  t.true((await start()).startsWith(`${provider.issuer}/`));
  t.is(await start(), '/cabinet/login?login_error=rate_limited');
});

testOnBackends('OIDC in invite mode: sign-up without a code is refused; a code works once; expired and revoked codes are refused', async (t, database) => {
  const setup = await setUp(t, database, 'invite');
  const invites = setup.gateway.services.users.invites;
  for (const name of ['bea', 'cid', 'dan', 'eve']) setup.provider.accounts.set(name, { email: `${name}@example.com`, email_verified: true });
  const [good, expiring, revoked] = await invites.create({ count: 3, expiresAt: setup.clock.now() + 3_600_000, actor: 'test' });
  await invites.revoke(revoked!.invite.id, 'test');

  const without = await logIn(setup, 'alice');
  t.is(without.location, `${setup.gateway.url}/cabinet/login?login_error=invite_required`);
  t.is(await count(setup.gateway, 'users'), 0);

  const withCode = await logIn(setup, 'alice', `?invite=${good!.code}`);
  t.is(withCode.location, `${setup.gateway.url}/cabinet/`);
  const alice = await sessionOf(setup.gateway, withCode.session);
  t.is((await invites.list({ all: true })).find((invite) => invite.id === good!.invite.id)!.usedBy, alice.body.user.id);
  // Alice logs in again without a code: she has a user already.
  t.is((await logIn(setup, 'alice')).location, `${setup.gateway.url}/cabinet/`);

  const reused = await logIn(setup, 'bea', `?invite=${good!.code}`);
  t.is(reused.location, `${setup.gateway.url}/cabinet/login?login_error=invite_invalid`);
  const revokedUse = await logIn(setup, 'cid', `?invite=${revoked!.code}`);
  t.is(revokedUse.location, `${setup.gateway.url}/cabinet/login?login_error=invite_invalid`);
  const wrong = await logIn(setup, 'dan', '?invite=gwi_not-a-real-code');
  t.is(wrong.location, `${setup.gateway.url}/cabinet/login?login_error=invite_invalid`);
  setup.clock.advance(3_600_000);
  const expired = await logIn(setup, 'eve', `?invite=${expiring!.code}`);
  t.is(expired.location, `${setup.gateway.url}/cabinet/login?login_error=invite_invalid`);
  t.is(await count(setup.gateway, 'users'), 1);
  t.is(await count(setup.gateway, 'accounts'), 1);
});

testOnBackends('serve refuses to start when an OIDC provider\'s client_secret_env is unset, naming the variable', async (t, database) => {
  const raw = configWith({ issuer: 'https://id.example.com', clientId: 'gw' }, 'open');
  const error = await t.throwsAsync(startGateway(t, database, { raw }));
  t.is(error.name, 'ConfigError');
  t.true(error.message.includes('cabinet.oidc "local" names client_secret_env TEST_OIDC_SECRET, which is not set in this process\'s environment'), error.message);
});

// Pending logins live in the cache: with Redis, a login started on one instance finishes on
// another, and still only once.
needing('redis')('OIDC with two instances sharing Redis: started on one, finished on the other, replay refused on either', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const provider = await startOidcProvider(t);
  const options = { raw: configWith(provider, 'open'), env: { TEST_OIDC_SECRET: provider.clientSecret, GATEWAY_CACHE_URL: redisUrl! } };
  const first = await startGateway(t, database, options);
  const second = await startGateway(t, database, options);
  provider.register(`${first.url}/cabinet/api/oidc/local/callback`);
  provider.accounts.set('alice', { email: 'alice@example.com', email_verified: true });
  provider.nextLogin = 'alice';
  const browser = new RedirectBrowser();
  let next = `${first.url}/cabinet/api/oidc/local/start`;
  for (;;) {
    const response = await browser.get(next);
    next = new URL(response.headers.get('location')!, next).href;
    if (next.startsWith(`${first.url}/cabinet/api/oidc/local/callback`)) break;
  }
  // The same browser reaching the other instance (a load balancer's choice): its cookie goes along.
  const stateCookie = browser.cookie(first.url, 'gateway_oidc')!;
  browser.setCookie(second.url, 'gateway_oidc', stateCookie);
  const onSecond = next.replace(first.url, second.url);
  const finished = await browser.get(onSecond);
  t.is(finished.headers.get('location'), '/cabinet/');
  t.truthy(browser.cookie(second.url, 'gateway_session'));
  browser.setCookie(first.url, 'gateway_oidc', stateCookie);
  t.is((await browser.get(next)).headers.get('location'), '/cabinet/login?login_error=login_expired');
  browser.setCookie(second.url, 'gateway_oidc', stateCookie);
  t.is((await browser.get(onSecond)).headers.get('location'), '/cabinet/login?login_error=login_expired');
  countRun('redis');
});
