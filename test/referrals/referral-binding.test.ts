// Binding a new account to its referrer (issue 32; docs/payments.md, "Referrals"), on both
// databases: through each sign-up path over HTTP (email and password with `referral`, OpenID
// Connect with `?ref=` kept across the provider's pages, Telegram with `&ref=`), a code that
// names nothing lets the sign-up go on without a referrer, referrals off bind nothing; and the
// rule itself: an account is never referred by itself or by an account of its own chain.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { readAudit } from '../../src/audit/audit-log.js';
import { bindReferrer, maxReferralChain } from '../../src/referrals/referral-binding.js';
import { normalizeReferralCode, referralCodeOf } from '../../src/referrals/referral-codes.js';
import { telegramHash } from '../../src/users/telegram-login.js';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { RedirectBrowser, startOidcProvider } from '../helpers/oidc-provider.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { newMember, userLogin } from '../helpers/users.js';

/** The referrer's code as its cabinet shows it (GET /cabinet/api/referral, which makes it). */
async function codeFromCabinet(gateway: TestGateway, accountId: string): Promise<{ code: string; link: string }> {
  const owner = await newMember(gateway.services, { accountId, role: 'owner' });
  const browser = await userLogin(gateway.services, { accountId, userId: owner.id });
  const answer = (await (await fetch(`${gateway.url}/cabinet/api/referral`, { headers: { cookie: browser.cookie } })).json()) as any;
  return { code: answer.code, link: answer.link };
}

const accountOfUser = async (gateway: TestGateway, email: string) => {
  const found = await gateway.services.users.users.findByEmail(email);
  const [membership] = await gateway.services.users.members.ofUser(found!.user.id);
  return gateway.services.db('accounts').where({ id: membership!.accountId }).first('id', 'referred_by', 'referred_at');
};

testOnBackends('email sign-up with `referral` binds the new account to the referrer at sign-up; an unknown or malformed code signs up without one', async (t, database) => {
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const smtp = await startSmtpServer(t);
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    raw: {
      ...raw,
      cabinet: { ...raw.cabinet, signup: 'open', signup_bonus: '25.00', public_url: 'https://gateway.example.com' },
      email: { smtp_url_env: 'TEST_SMTP_URL', from: 'Gateway <gateway@example.com>' },
      referral: { percent: '10' },
    },
    env: { TEST_SMTP_URL: smtp.url },
    now: clock.now,
  });
  const referrer = await gateway.services.accounts.create('referrer');
  const { code, link } = await codeFromCabinet(gateway, referrer.id);
  t.regex(code, /^[2-9a-hjkmnp-z]{8}$/);
  t.is(link, `https://gateway.example.com/cabinet/signup?ref=${code}`);
  t.is((await codeFromCabinet(gateway, referrer.id)).code, code, 'made once, then kept');

  const signUp = (email: string, referral: string) =>
    fetch(`${gateway.url}/cabinet/api/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery', referral }) });
  // The code as a person may type it back: upper case, spaces around.
  t.is((await signUp('ann@example.com', ` ${code.toUpperCase()} `)).status, 202);
  t.is((await signUp('bob@example.com', 'zzzzzzzz')).status, 202);
  t.is((await signUp('cid@example.com', 'not a code at all!')).status, 202);

  const ann = await accountOfUser(gateway, 'ann@example.com');
  t.deepEqual([ann.referred_by, Number(ann.referred_at)], [referrer.id, clock.now()]);
  t.is((await accountOfUser(gateway, 'bob@example.com')).referred_by, null);
  t.is((await accountOfUser(gateway, 'cid@example.com')).referred_by, null);
  const signups = await readAudit(gateway.services.db, { action: 'user.signup', limit: 10 });
  t.deepEqual(
    signups.map((row) => [row.details.referred_by, row.details.referral_refused]).reverse(),
    [
      [referrer.id, undefined],
      [undefined, 'unknown_code'],
      [undefined, 'unknown_code'],
    ],
  );
  // The sign-up bonus is not a paid top-up: the referrer earned nothing from it.
  t.is((await gateway.services.ledger.balance(referrer.id)).balanceUnits, 0n);
  const owner = await newMember(gateway.services, { accountId: referrer.id, role: 'member' });
  const browser = await userLogin(gateway.services, { accountId: referrer.id, userId: owner.id });
  t.like(await (await fetch(`${gateway.url}/cabinet/api/referral`, { headers: { cookie: browser.cookie } })).json(), { referred_accounts: 1, income_rub: '0.0000' });
});

testOnBackends('OIDC keeps `?ref=` with the pending login and Telegram takes `&ref=` outside its signed data: both new accounts are bound; without `referral` nothing is', async (t, database) => {
  const botToken = '123456789:AAE-test-bot-token-of-this-suite_0123456';
  const provider = await startOidcProvider(t);
  const clock = testClock({ running: true }); // the ID token's times are checked against the real clock
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const cabinet = {
    ...raw.cabinet,
    signup: 'open',
    oidc: [{ name: 'local', label: 'Local ID', issuer: provider.issuer, client_id: provider.clientId, client_secret_env: 'TEST_OIDC_SECRET' }],
    telegram_login: { bot_username: 'gateway_test_bot', bot_token_env: 'TEST_TELEGRAM_TOKEN', max_age: '1h' },
  };
  const gateway = await startGateway(t, database, { raw: { ...raw, cabinet, referral: { percent: '10' } }, env: { TEST_OIDC_SECRET: provider.clientSecret, TEST_TELEGRAM_TOKEN: botToken }, now: clock.now });
  provider.register(`${gateway.url}/cabinet/api/oidc/local/callback`);
  provider.accounts.set('alice', { email: 'alice@example.com', email_verified: true, name: 'Alice' });
  const referrer = await gateway.services.accounts.create('referrer');
  const { code } = await codeFromCabinet(gateway, referrer.id);

  provider.nextLogin = 'alice';
  const { location } = await new RedirectBrowser().follow(`${gateway.url}/cabinet/api/oidc/local/start?ref=${code}`, gateway.url);
  t.is(location, `${gateway.url}/cabinet/`);
  t.is((await accountOfUser(gateway, 'alice@example.com')).referred_by, referrer.id);

  const data = { id: '4242', first_name: 'Tele', auth_date: String(Math.floor(clock.now() / 1000)) };
  const query = new URLSearchParams({ ...data, hash: telegramHash(data, botToken), ref: code });
  const telegram = await fetch(`${gateway.url}/cabinet/api/telegram/callback?${query}`, { redirect: 'manual' });
  t.is(telegram.headers.get('location'), '/cabinet/');
  const telegramUser = await gateway.services.users.users.findByIdentity('telegram', '4242');
  const [membership] = await gateway.services.users.members.ofUser(telegramUser!.id);
  t.is((await gateway.services.db('accounts').where({ id: membership!.accountId }).first('referred_by')).referred_by, referrer.id);

  // The same code on a gateway without `referral`: the sign-up binds nothing.
  const plain = await startGateway(t, database, { raw: { ...raw, cabinet: { ...raw.cabinet, signup: 'open', telegram_login: cabinet.telegram_login } }, env: { TEST_TELEGRAM_TOKEN: botToken }, now: clock.now });
  const other = { id: '4343', auth_date: String(Math.floor(clock.now() / 1000)) };
  await fetch(`${plain.url}/cabinet/api/telegram/callback?${new URLSearchParams({ ...other, hash: telegramHash(other, botToken), ref: code })}`, { redirect: 'manual' });
  const plainUser = await plain.services.users.users.findByIdentity('telegram', '4343');
  const [plainMembership] = await plain.services.users.members.ofUser(plainUser!.id);
  t.is((await plain.services.db('accounts').where({ id: plainMembership!.accountId }).first('referred_by')).referred_by, null);
  const referral = (await (await fetch(`${plain.url}/cabinet/api/referral`, { headers: { cookie: (await userLogin(plain.services, { accountId: plainMembership!.accountId, userId: plainUser!.id })).cookie } })).json()) as any;
  t.deepEqual(referral, { enabled: false, code: null, link: null, percent: null, months: null, referred_accounts: 0, income_rub: '0.0000' });
});

testOnBackends('an account is never referred by itself or by its own chain (two and three steps); a second referrer is refused; the walk up is bounded', async (t, { db }) => {
  const gateway = { db, now: () => 1_000_000 };
  const create = async (name: string) => {
    const id = `acc_${name}`;
    await db('accounts').insert({ id, name, balance_units: 0, held_units: 0, webhook_secret: 'whsec_x', created_at: 1 });
    return { id, code: await referralCodeOf(db, id) };
  };
  const bind = (accountId: string, code: string) => db.transaction((trx) => bindReferrer(trx, accountId, code, gateway.now()));
  const [a, b, c] = [await create('a'), await create('b'), await create('c')];

  t.deepEqual(await bind(a.id, a.code), { bound: false, reason: 'self' });
  t.deepEqual(await bind(b.id, a.code), { bound: true, referrerId: a.id });
  t.deepEqual(await bind(a.id, b.code), { bound: false, reason: 'loop' }, 'A → B → A');
  t.deepEqual(await bind(c.id, b.code), { bound: true, referrerId: b.id });
  t.deepEqual(await bind(a.id, c.code), { bound: false, reason: 'loop' }, 'A → C → B → A');
  t.deepEqual(await bind(c.id, a.code), { bound: false, reason: 'already_referred' });
  t.deepEqual(await bind(a.id, 'qqqqqqqq'), { bound: false, reason: 'unknown_code' });
  t.is((await db('accounts').where({ id: a.id }).first('referred_by')).referred_by, null);
  t.is(normalizeReferralCode(` ${a.code.toUpperCase()}\n`), a.code);
  t.is(normalizeReferralCode('0o1lI0o1'), null, 'look-alikes are never in a code');

  // A chain of exactly maxReferralChain generations above the referrer is walked to its top; one more is refused.
  const chain = Array.from({ length: maxReferralChain + 1 }, (_, index) => `acc_chain${index}`);
  await db('accounts').insert(
    chain.map((id, index) => ({ id, name: `chain ${index}`, balance_units: 0, held_units: 0, webhook_secret: 'whsec_x', created_at: 1, referred_by: index === 0 ? null : chain[index - 1], referred_at: index === 0 ? null : 1 })),
  );
  const [x, y] = [await create('x'), await create('y')];
  t.deepEqual(await bind(x.id, await referralCodeOf(db, chain[maxReferralChain - 1]!)), { bound: true, referrerId: chain[maxReferralChain - 1] });
  t.deepEqual(await bind(y.id, await referralCodeOf(db, chain[maxReferralChain]!)), { bound: false, reason: 'chain_too_long' });
});
