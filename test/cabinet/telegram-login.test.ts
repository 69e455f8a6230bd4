// Telegram login (issue 31): GET /cabinet/api/telegram/callback with the Login Widget's signed
// data, on both databases. Signed data is accepted (a new user, then the same user again); a
// wrong hash, a stale auth_date and one in the future are refused (the gateway's injected
// clock); in invite mode the code rides along outside the signed data.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { telegramHash } from '../../src/users/telegram-login.js';
import type { ExecutionContext } from 'ava';

const botToken = '123456789:AAE-test-bot-token-of-this-suite_0123456';

async function setUp(t: ExecutionContext, database: TestDatabase, signup: 'open' | 'invite' | 'closed') {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  raw.cabinet = { ...raw.cabinet, signup, telegram_login: { bot_username: 'gateway_test_bot', bot_token_env: 'TEST_TELEGRAM_TOKEN', max_age: '1h' } };
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const gateway = await startGateway(t, database, { raw, env: { TEST_TELEGRAM_TOKEN: botToken }, now: clock.now });
  return { gateway, clock };
}

/** What Telegram hands the browser for this user, signed with `token`, at `authDate` (ms). */
function signed(fields: Record<string, string>, authDate: number, token = botToken): Record<string, string> {
  const data = { ...fields, auth_date: String(Math.floor(authDate / 1000)) };
  return { ...data, hash: telegramHash(data, token) };
}

async function callback(url: string, data: Record<string, string>) {
  const response = await fetch(`${url}/cabinet/api/telegram/callback?${new URLSearchParams(data)}`, { redirect: 'manual' });
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('gateway_session='));
  return { status: response.status, location: response.headers.get('location'), cookie: cookie?.split(';')[0] };
}

testOnBackends('Telegram: signed data logs in (a new user, then the same one); a wrong hash, a stale and a future auth_date are refused', async (t, database) => {
  const { gateway, clock } = await setUp(t, database, 'open');
  const options = (await (await fetch(`${gateway.url}/cabinet/api/login-options`)).json()) as { telegram: unknown };
  t.deepEqual(options.telegram, { bot_username: 'gateway_test_bot', bot_id: '123456789' });

  const ann = { id: '4242', first_name: 'Ann', last_name: 'Lee', username: 'annlee', photo_url: 'https://t.me/i/userpic/320/ann.jpg' };
  const first = await callback(gateway.url, signed(ann, clock.now() - 60_000));
  t.is(first.status, 302);
  t.is(first.location, '/cabinet/');
  const session = (await (await fetch(`${gateway.url}/cabinet/api/session`, { headers: { cookie: first.cookie! } })).json()) as any;
  t.is(session.method, 'telegram');
  t.is(session.role, 'owner');
  const user = await gateway.services.users.users.find(session.user.id);
  t.is(user.email, null);
  t.is(user.name, 'Ann Lee');
  t.is(await gateway.services.users.users.findByIdentity('telegram', '4242').then((found) => found?.id), user.id);

  const second = await callback(gateway.url, signed(ann, clock.now()));
  t.is(second.location, '/cabinet/');
  t.not(second.cookie, first.cookie);
  const again = (await (await fetch(`${gateway.url}/cabinet/api/session`, { headers: { cookie: second.cookie! } })).json()) as any;
  t.is(again.user.id, user.id);

  const tampered = signed(ann, clock.now());
  tampered.id = '4243';
  t.deepEqual(await callback(gateway.url, tampered), { status: 302, location: '/cabinet/login?login_error=telegram_invalid', cookie: undefined });
  t.deepEqual(await callback(gateway.url, signed(ann, clock.now(), '987654321:another-bot-token')), { status: 302, location: '/cabinet/login?login_error=telegram_invalid', cookie: undefined });
  const { hash: _hash, ...unsigned } = signed(ann, clock.now());
  t.deepEqual(await callback(gateway.url, unsigned), { status: 302, location: '/cabinet/login?login_error=telegram_invalid', cookie: undefined });

  // max_age is 1h: signed exactly an hour ago still passes, a second more does not.
  const atLimit = signed({ id: '4242' }, clock.now() - 3_600_000);
  const pastLimit = signed({ id: '4242' }, clock.now() - 3_601_000);
  t.is((await callback(gateway.url, atLimit)).location, '/cabinet/');
  t.deepEqual(await callback(gateway.url, pastLimit), { status: 302, location: '/cabinet/login?login_error=telegram_stale', cookie: undefined });
  // The same signed data, later: stale by the gateway's clock.
  const fresh = signed(ann, clock.now());
  clock.advance(3_601_000);
  t.is((await callback(gateway.url, fresh)).location, '/cabinet/login?login_error=telegram_stale');
  t.is((await callback(gateway.url, signed(ann, clock.now() + 3_600_000))).location, '/cabinet/login?login_error=telegram_stale');
  t.is(Number(((await gateway.services.db('users').count({ n: '*' }).first()) as { n: number | string }).n), 1);
  t.is(Number(((await gateway.services.db('audit_log').where({ action: 'user.login', target: user.id }).count({ n: '*' }).first()) as { n: number | string }).n), 3);
});

testOnBackends('Telegram in invite mode: no code refused, a code works once (it is not part of the signed data)', async (t, database) => {
  const { gateway, clock } = await setUp(t, database, 'invite');
  const [invite] = await gateway.services.users.invites.create({ count: 1, expiresAt: null, actor: 'test' });
  t.is((await callback(gateway.url, signed({ id: '1' }, clock.now()))).location, '/cabinet/login?login_error=invite_required');
  t.is((await callback(gateway.url, { ...signed({ id: '1' }, clock.now()), invite: invite!.code })).location, '/cabinet/');
  t.is((await callback(gateway.url, { ...signed({ id: '2' }, clock.now()), invite: invite!.code })).location, '/cabinet/login?login_error=invite_invalid');
  // The first user comes back without a code.
  t.is((await callback(gateway.url, signed({ id: '1' }, clock.now()))).location, '/cabinet/');
});

testOnBackends('serve refuses to start when cabinet.telegram_login\'s bot_token_env is unset', async (t, database) => {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  raw.cabinet = { ...raw.cabinet, telegram_login: { bot_username: 'gateway_test_bot', bot_token_env: 'TEST_TELEGRAM_TOKEN' } };
  const error = await t.throwsAsync(startGateway(t, database, { raw }));
  t.true(error.message.includes('cabinet.telegram_login names bot_token_env TEST_TELEGRAM_TOKEN, which is not set'), error.message);
});
