// The pure parts of the cabinet's credentials: the session cookie read from a Cookie header and
// written with its exact flags, the Secure rule, and the shape check of secrets that runs
// before any lookup. Also the cabinet section of the configuration: defaults and refusals.
import test from 'ava';
import { clearedSessionCookie, cookieIsSecure, readSessionCookie, sessionCookie } from '../../src/cabinet/cookie.js';
import { hashSecret, isSecretOf, newSecret } from '../../src/cabinet/secret-tokens.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';

test('the session cookie is found among others, and only by its exact name', (t) => {
  t.is(readSessionCookie('a=1; gateway_session=gws_abc; b=2'), 'gws_abc');
  t.is(readSessionCookie('gateway_session=gws_x'), 'gws_x');
  t.is(readSessionCookie('xgateway_session=gws_y; gateway_sessionx=gws_z'), undefined);
  t.is(readSessionCookie(undefined), undefined);
  t.is(readSessionCookie(''), undefined);
});

test('Set-Cookie with its exact flags; Secure by the public URL or TLS', (t) => {
  const now = Date.UTC(2026, 10, 26, 1, 0, 0);
  t.is(
    sessionCookie('gws_t', now + 3_600_500, now, false),
    'gateway_session=gws_t; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600; Expires=Thu, 26 Nov 2026 02:00:00 GMT',
  );
  t.is(clearedSessionCookie(true), 'gateway_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  t.true(cookieIsSecure('https://gw.example.com', false));
  t.true(cookieIsSecure('http://127.0.0.1:8080', true));
  t.false(cookieIsSecure('http://127.0.0.1:8080', false));
});

test('secrets: prefix and 43 base64url characters; anything else is refused before a lookup', (t) => {
  const secret = newSecret('gwa_');
  t.regex(secret, /^gwa_[A-Za-z0-9_-]{43}$/);
  t.true(isSecretOf('gwa_', secret));
  t.false(isSecretOf('gws_', secret), 'another kind');
  t.false(isSecretOf('gwa_', `${secret}x`));
  t.false(isSecretOf('gwa_', `gwa_${'!'.repeat(43)}`));
  t.false(isSecretOf('gwa_', undefined));
  t.false(isSecretOf('gwa_', 42));
  t.is(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('the cabinet configuration: defaults, the public URL, and refusals naming the key', (t) => {
  const defaults = loadConfig({ raw: {}, env: {} }).cabinet;
  t.deepEqual(defaults, {
    publicUrl: 'http://127.0.0.1:8080',
    publicUrlConfigured: false,
    linkTtlMs: 900_000,
    sessionIdleMs: 7_200_000,
    sessionMaxMs: 604_800_000,
    adminSessionMaxMs: 43_200_000,
    loginAttemptsPerMinute: 10,
    loginAttemptsPerEmailPerMinute: 10,
    codeAttemptsPerMinute: 10,
    signup: 'closed',
    signupBonusUnits: 0n,
    emailLinkTtlMs: 3_600_000,
    oidc: [],
    telegramLogin: undefined,
  });
  t.is(loadConfig({ raw: {}, env: {} }).email, undefined, 'no email unless configured');
  const open = loadConfig({ raw: { cabinet: { signup: 'open', signup_bonus: '50.25' }, email: { smtp_url_env: 'SMTP_URL', from: 'gw@example.com' } }, env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
  t.is(open.cabinet.signupBonusUnits, 502_500n);
  t.deepEqual(open.email, { smtpUrl: 'smtp://127.0.0.1:2525', smtpUrlEnv: 'SMTP_URL', from: 'gw@example.com' });
  const badBonus = t.throws(() => loadConfig({ raw: { cabinet: { signup_bonus: '1.00001' } }, env: {} }), { instanceOf: ConfigError });
  t.regex(badBonus.message, /cabinet\.signup_bonus: expected an amount in RUB with up to 4 decimals/);
  t.is(loadConfig({ raw: { server: { host: '0.0.0.0', port: 9000 } }, env: {} }).cabinet.publicUrl, 'http://127.0.0.1:9000', 'a wildcard host is reached on loopback');
  t.is(loadConfig({ raw: { server: { host: '::' } }, env: { GATEWAY_PORT: '8443' } }).cabinet.publicUrl, 'http://[::1]:8443');
  t.is(loadConfig({ raw: { cabinet: { public_url: 'https://gw.example.com/' } }, env: {} }).cabinet.publicUrl, 'https://gw.example.com', 'no trailing slash');
  t.true(loadConfig({ raw: { cabinet: { public_url: 'https://gw.example.com/' } }, env: {} }).cabinet.publicUrlConfigured);
  const withPath = t.throws(() => loadConfig({ raw: { cabinet: { public_url: 'https://gw.example.com/cabinet' } }, env: {} }), { instanceOf: ConfigError });
  t.regex(withPath.message, /cabinet\.public_url: expected a scheme and host only/);
  const badTtl = t.throws(() => loadConfig({ raw: { cabinet: { link_ttl: 'soon' } }, env: {} }), { instanceOf: ConfigError });
  t.regex(badTtl.message, /cabinet\.link_ttl/);
  const unknown = t.throws(() => loadConfig({ raw: { cabinet: { session_ttl: '1h' } }, env: {} }), { instanceOf: ConfigError });
  t.regex(unknown.message, /cabinet: unknown key\(s\) "session_ttl"/);
});
