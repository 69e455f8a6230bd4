// Ended login links and sessions are removed by the periodic sweep of `serve` and `worker`
// (src/cabinet/cleanup.ts), on the injected clock, on both databases: used and expired links at
// once; sessions a day after their absolute end or their revocation — until then a cookie of an
// expired session is still told session_expired. Before, both tables kept every login forever.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { testOnBackends } from '../helpers/backends.js';
import { loginAs, loginLinkToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;

function configWithSweep(sweepInterval: string): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return { ...raw, holds: { ...raw.holds, sweep_interval: sweepInterval } };
}

async function sessionAnswer(url: string, cookie: string): Promise<string> {
  const response = await fetch(`${url}/cabinet/api/session`, { headers: { cookie } });
  const body = (await response.json()) as { error?: { code: string } };
  return `${response.status} ${body.error?.code ?? 'live'}`;
}

testOnBackends('cabinet cleanup: used and expired login links go at once, sessions a day after their end or revocation (exact boundaries)', async (t, database) => {
  const clock = testClock();
  // The sweep itself is slow here: this test runs each round itself, to count exactly.
  const gateway = await startGateway(t, database, { raw: configWithSweep('1h'), now: clock.now });
  const { cabinet } = gateway.services;
  const account = await gateway.services.accounts.create(`cleanup-${Math.random().toString(36).slice(2, 10)}`);
  const source = { db: database.db, cabinet };
  const accountLogin = await loginAs(gateway.url, source, { account: account.name });
  const adminLogin = await loginAs(gateway.url, source, { admin: true });
  await loginLinkToken(source, { account: account.name }); // printed, never opened
  const accountSession = await database.db('cabinet_sessions').where({ kind: 'account' }).first();
  await cabinet.sessions.revoke(accountSession.id, 'test:cleanup');
  const remaining = async () => ({
    links: (await database.db('login_links').select('used_at')).map((row) => (row.used_at === null ? 'unused' : 'used')),
    sessions: (await database.db('cabinet_sessions').orderBy('kind').select('kind')).map((row) => row.kind as string),
  });
  t.deepEqual(await remaining(), { links: ['used', 'used', 'unused'], sessions: ['account', 'admin'] });

  // Used links open nothing more: gone at the first round; the unused one lives out its 15 minutes.
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 2, sessions: 0 });
  clock.advance(15 * minuteMs - 1);
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 0, sessions: 0 });
  clock.advance(1);
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 1, sessions: 0 });
  t.deepEqual(await remaining(), { links: [], sessions: ['account', 'admin'] });

  // The account session was revoked at the start: kept one day from then.
  clock.advance(dayMs - 15 * minuteMs - 1);
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 0, sessions: 0 });
  clock.advance(1);
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 0, sessions: 1 });
  t.deepEqual(await remaining(), { links: [], sessions: ['admin'] });
  t.is(await sessionAnswer(gateway.url, accountLogin.cookie), '401 session_required');

  // The operator session ended at 12 h (admin_session_max): still told apart as expired for a
  // day, then removed.
  t.is(await sessionAnswer(gateway.url, adminLogin.cookie), '401 session_expired');
  clock.advance(12 * hourMs - 1);
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 0, sessions: 0 });
  clock.advance(1);
  t.deepEqual(await cabinet.removeEnded(), { loginLinks: 0, sessions: 1 });
  t.deepEqual(await remaining(), { links: [], sessions: [] });
  t.is(await sessionAnswer(gateway.url, adminLogin.cookie), '401 session_required');
});

testOnBackends('cabinet cleanup runs with the hold sweep of a serving process (holds.sweep_interval), on its clock', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { raw: configWithSweep('50ms'), now: clock.now });
  const account = await gateway.services.accounts.create(`cleanup-${Math.random().toString(36).slice(2, 10)}`);
  const login = await loginAs(gateway.url, { db: database.db, cabinet: gateway.services.cabinet }, { account: account.name });
  await loginLinkToken({ db: database.db, cabinet: gateway.services.cabinet }, { account: account.name });
  await eventually(async () => (await database.db('login_links').whereNotNull('used_at')).length === 0, { what: 'the used link removed by the sweep', intervalMs: 50 });
  t.is((await database.db('login_links').whereNull('used_at')).length, 1, 'the unused link is live: kept');
  t.is(await sessionAnswer(gateway.url, login.cookie), '200 live');
  clock.advance(7 * dayMs + dayMs); // past the session's absolute end (session_max 7 d) and the day after it
  await eventually(async () => (await database.db('login_links')).length === 0 && (await database.db('cabinet_sessions')).length === 0, {
    what: 'the expired link and the ended session removed by the sweep',
    intervalMs: 50,
  });
  t.is(await sessionAnswer(gateway.url, login.cookie), '401 session_required');
});
