import test from 'ava';
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { InsufficientBalanceError } from '../../src/billing/errors.js';
import { Ledger, type Hold } from '../../src/billing/ledger.js';
import type { UsageOfCharge } from '../../src/billing/usage-record.js';
import { drainUsageOutbox } from '../../src/billing/usage-outbox.js';
import { hotStatements } from '../../src/db/hot-statements.js';
import { assertLedgerInvariants, countRun, createTestDatabase, needing, testOnBackends } from '../helpers/backends.js';

testOnBackends('statements of many requests at once: each gets its own outcome, refusals included, and the money adds up', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('grouped');
  await ledger.credit(account.id, 10_000n, 'topup');
  // 60 holds of 250 against 10,000: 40 fit. Holds, settles and releases interleave in groups.
  const results = await Promise.allSettled(
    Array.from({ length: 60 }, async (_, index) => {
      const hold = await ledger.hold(account.id, 250n, { ttlMs: 60_000, requestId: `req_${index}` });
      if (index % 3 === 0) await ledger.release(hold.id);
      else await ledger.settle(hold.id, 100n);
      return hold;
    }),
  );
  const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  t.true(refused.every((result) => result.reason instanceof InsufficientBalanceError), 'only refusals fail');
  const settled = Number(await db('holds').where({ status: 'settled' }).count({ n: '*' }).first().then((row) => row!.n));
  const balance = await ledger.balance(account.id);
  t.is(balance.heldUnits, 0n);
  t.is(balance.balanceUnits, 10_000n - 100n * BigInt(settled));
  t.true(60 - refused.length >= 40, 'at least the 40 that fit at once were placed');
  await assertLedgerInvariants(t, db);
});

testOnBackends('a statement that breaks its group fails alone: the group is rolled back and the others run again, each alone', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('broken');
  await ledger.credit(account.id, 10_000n, 'topup');
  const broken = { sqlite: 'SELECT * FROM no_such_table', pg: 'SELECT * FROM no_such_table', writes: true };
  // Queued in one tick: the first hold starts a group alone, the rest wait and run as the next group.
  const first = ledger.hold(account.id, 100n, { ttlMs: 60_000 });
  const group = [ledger.hold(account.id, 100n, { ttlMs: 60_000 }), hotStatements(db).run(broken, {}), ledger.hold(account.id, 100n, { ttlMs: 60_000 })];
  const outcomes = await Promise.allSettled(group);
  t.is((await first).amountUnits, 100n);
  t.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.regex(String((outcomes[1] as PromiseRejectedResult).reason), /no_such_table|no such table/);
  t.is(Number((await db('holds').count({ n: '*' }).first())!.n), 3, 'each hold exactly once: the rolled-back group left nothing behind');
  t.is((await ledger.balance(account.id)).heldUnits, 300n);
  await assertLedgerInvariants(t, db);
});

/** A usage record of a charge (the fields a settle brings), for request `requestId`. */
function usageOf(accountId: string, requestId: string, extra: Partial<UsageOfCharge> = {}): UsageOfCharge {
  return {
    request_id: requestId, account_id: accountId, key_id: 'key_test', endpoint: 'chat.completions', model: 'sim/chat', provider: 'sim',
    upstream_model: 'chat', status: 'completed', input_tokens: 10, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 20,
    reasoning_tokens: 0, estimated: false, latency_ms: 5, ttft_ms: 2, finish_reason: 'stop', created_at: 1_800_000_000_000, ...extra,
  };
}

/** Each usage record (the outbox moved first) with the charge of its request's hold: they must agree, one record per charge. */
async function usageAgainstCharges(db: Knex) {
  await drainUsageOutbox(db); // SQLite: a settle run alone leaves its record in the outbox (usage-outbox.ts)
  const records: { request_id: string; cost_units: string | number; images: number; estimated: number | boolean }[] = await db('usage_records').select('request_id', 'cost_units', 'images', 'estimated').orderBy('request_id');
  const charges: { request_id: string; amount_units: string | number }[] = await db('ledger_transactions').where({ kind: 'charge' }).select('request_id', 'amount_units').orderBy('request_id');
  return { records, charges };
}

testOnBackends("a group's settles write their usage records in the group's commit, each with its charge; a settle of a closed hold writes none", async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('companions');
  await ledger.credit(account.id, 100_000n, 'topup');
  const holds: Hold[] = [];
  for (let index = 0; index < 12; index++) holds.push(await ledger.hold(account.id, 2_000n, { ttlMs: 60_000, requestId: `req_${String(index).padStart(2, '0')}` }));
  await ledger.release(holds[11]!.id);
  // Queued in one tick: the first settle runs alone (it writes its own record), the rest as one
  // group (one statement writes their records before the COMMIT). The last hold is closed already.
  const outcomes = await Promise.allSettled(
    holds.map((hold, index) =>
      ledger.settle(hold.id, BigInt(100 * (index + 1)), { requestId: `req_${String(index).padStart(2, '0')}`, usage: usageOf(account.id, `req_${String(index).padStart(2, '0')}`, index === 3 ? { images: 2, estimated: true } : {}) }),
    ),
  );
  t.deepEqual(outcomes.map((outcome) => outcome.status), [...Array(11).fill('fulfilled'), 'rejected']);
  const { records, charges } = await usageAgainstCharges(db);
  t.is(records.length, 11, 'one record per charge, none for the closed hold');
  t.deepEqual(records.map((record) => [record.request_id, Number(record.cost_units)]), charges.map((charge) => [charge.request_id, -Number(charge.amount_units)]));
  t.deepEqual(records.map((record) => Number(record.cost_units)), Array.from({ length: 11 }, (_, index) => 100 * (index + 1)));
  t.deepEqual(records.map((record) => [record.images, Boolean(record.estimated)]), records.map((_, index) => (index === 3 ? [2, true] : [0, false])));
  await assertLedgerInvariants(t, db);
});

testOnBackends('a group rolled back by another statement: its settles run again alone, each writing its own usage record once', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('companions-again');
  await ledger.credit(account.id, 100_000n, 'topup');
  const holds: Hold[] = [];
  for (let index = 0; index < 4; index++) holds.push(await ledger.hold(account.id, 1_000n, { ttlMs: 60_000, requestId: `req_${index}` }));
  const broken = { sqlite: 'SELECT * FROM no_such_table', pg: 'SELECT * FROM no_such_table', writes: true };
  const settle = (index: number) => ledger.settle(holds[index]!.id, 500n, { requestId: `req_${index}`, usage: usageOf(account.id, `req_${index}`) });
  const first = settle(0);
  const group = [settle(1), hotStatements(db).run(broken, {}), settle(2), settle(3)];
  const outcomes = await Promise.allSettled(group);
  await first;
  t.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  const { records, charges } = await usageAgainstCharges(db);
  t.deepEqual(records.map((record) => [record.request_id, Number(record.cost_units)]), [['req_0', 500], ['req_1', 500], ['req_2', 500], ['req_3', 500]]);
  t.is(charges.length, 4);
  await assertLedgerInvariants(t, db);
});

test('SQLite: a connection with prepared statements still closes', async (t) => {
  const database = await createTestDatabase('sqlite');
  const ledger = new Ledger(database.db);
  const account = await new Accounts(database.db).create('closing');
  await ledger.credit(account.id, 1_000n, 'topup');
  await ledger.release((await ledger.hold(account.id, 10n, { ttlMs: 60_000 })).id);
  await t.notThrowsAsync(database.drop());
  countRun('sqlite');
});

test('SQLite: a refusal in a group undoes only its own statement when its statement journal outgrows memory (a temporary file)', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const { db } = database;
  // 100 rows of 2,000 bytes: ~50 pages. Every statement below changes all of them, so each
  // statement journals ~200 KB (SQLite moves a journal over 64 KiB to a temporary file).
  await db.raw('CREATE TABLE wide (id INTEGER PRIMARY KEY, v INTEGER NOT NULL CHECK (v <= 2), payload BLOB NOT NULL)');
  await db.raw('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO wide (id, v, payload) SELECT i, CASE WHEN i = 100 THEN 1 ELSE 0 END, randomblob(2000) FROM n');
  const all = { sqlite: 'UPDATE wide SET v = v + 1', pg: '', writes: true };
  const allButLast = { sqlite: 'UPDATE wide SET v = v + 1 WHERE id < 100', pg: '', writes: true };
  const statements = hotStatements(db);
  // Queued in one tick: the first runs alone, the other three run as one group (one transaction).
  const first = statements.run({ sqlite: 'UPDATE wide SET payload = payload WHERE id = 1', pg: '', writes: true }, {});
  // 1-99 → 1 and 100 → 2; then 100 would be 3: refused after 99 rows were changed; then 1-99 → 2.
  const outcomes = await Promise.allSettled([statements.run(all, {}), statements.run(all, {}), statements.run(allButLast, {})]);
  await first;
  t.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.regex(String((outcomes[1] as PromiseRejectedResult).reason), /CHECK constraint failed/);
  const rows: { v: number; n: number }[] = await db.raw('SELECT v, COUNT(*) AS n FROM wide GROUP BY v');
  t.deepEqual(rows, [{ v: 2, n: 100 }], 'the refused statement left none of its 99 changes behind');
  countRun('sqlite');
});

// PostgreSQL only (SQLite has one writer at a time: no row locks to wait on); registered when
// GATEWAY_TEST_PG_URL is set, like every PostgreSQL test, and counted in the backend tally.
const postgresOnly = needing('postgres');
postgresOnly('PostgreSQL: a group waiting on a lock held elsewhere gives up after a moment, and its other statements go ahead alone', async (t) => {
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const { db } = database;
  const ledger = new Ledger(db);
  const accounts = new Accounts(db);
  const [busy, free] = [await accounts.create('busy'), await accounts.create('free')];
  await ledger.credit(busy.id, 10_000n, 'topup');
  await ledger.credit(free.id, 10_000n, 'topup');
  // Another transaction (another process's group, say) holds the busy account's row.
  const other = await db.transaction();
  await other('accounts').where({ id: busy.id }).forUpdate().first();
  const first = ledger.hold(free.id, 100n, { ttlMs: 60_000 }); // a group of one, runs at once
  const waiting = ledger.hold(busy.id, 100n, { ttlMs: 60_000 });
  const free2 = ledger.hold(free.id, 100n, { ttlMs: 60_000 });
  let waitingSettled = false;
  void waiting.finally(() => (waitingSettled = true)).catch(() => undefined);
  await first;
  // Grouped with the busy account's hold, it would wait as long as the lock is held, and the
  // lock is released only below, after it: that it resolves at all is the group giving up.
  await free2;
  t.false(waitingSettled, "the busy account's hold still waits for the lock meanwhile");
  await other.commit();
  t.is((await waiting).amountUnits, 100n);
  t.is((await ledger.balance(free.id)).heldUnits, 200n);
  t.is((await ledger.balance(busy.id)).heldUnits, 100n);
  await assertLedgerInvariants(t, db);
  countRun('postgres');
});
