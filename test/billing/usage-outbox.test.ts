// The usage outbox (src/billing/usage-outbox.ts, migration 20261127190000): on SQLite a settle run
// alone leaves its usage record there in the charge's commit, and a move copies each record to
// usage_records exactly once, with the charge as its cost; on PostgreSQL the settle writes
// usage_records itself and a move does nothing.
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import type { UsageOfCharge } from '../../src/billing/usage-record.js';
import { Ledger } from '../../src/billing/ledger.js';
import { drainUsageOutbox, UsageOutbox } from '../../src/billing/usage-outbox.js';
import { isPostgres } from '../../src/db/dialect.js';
import { createLogger } from '../../src/observability/logger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

function usageOf(accountId: string, requestId: string, extra: Partial<UsageOfCharge> = {}): UsageOfCharge {
  return {
    request_id: requestId, account_id: accountId, key_id: 'key_test', endpoint: 'chat-completions', model: 'sim/chat', provider: 'sim',
    upstream_model: 'chat', status: 'completed', input_tokens: 10, cached_input_tokens: 1, cache_write_input_tokens: 0, output_tokens: 20,
    reasoning_tokens: 3, estimated: false, latency_ms: 5, ttft_ms: null, finish_reason: 'stop', created_at: 1_800_000_000_000, ...extra,
  };
}

const countOf = async (db: Knex, table: string) => Number((await db(table).count({ n: '*' }).first())!.n);

/** `count` charges of 100, 200, … settled one after another (each alone: its own commit). */
async function settleAlone(db: Knex, count: number, name: string) {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create(name);
  await ledger.credit(account.id, 100_000_000_000n, 'topup');
  for (let index = 0; index < count; index++) {
    const requestId = `req_${name}_${String(index).padStart(4, '0')}`;
    const hold = await ledger.hold(account.id, 200_000n, { ttlMs: 60_000, requestId });
    await ledger.settle(hold.id, BigInt(100 * (index + 1)), { requestId, usage: usageOf(account.id, requestId, index === 0 ? { images: 2, ttft_ms: 7 } : {}) });
  }
  return account;
}

testOnBackends('a settle alone commits its usage record with the charge (SQLite: in the outbox); a move copies it once, with the charge as its cost', async (t, { db }) => {
  const account = await settleAlone(db, 3, 'outbox');
  if (isPostgres(db)) {
    t.is(await countOf(db, 'usage_records'), 3, 'PostgreSQL: written by the settle itself');
    t.is(await drainUsageOutbox(db), 0);
  } else {
    t.is(await countOf(db, 'usage_records'), 0, 'SQLite: not in usage_records yet');
    const waiting = await db('usage_outbox').orderBy('id');
    t.deepEqual(waiting.map((row: { charged_units: number; usage_json: string }) => [Number(row.charged_units), JSON.parse(row.usage_json).request_id]), [
      [100, 'req_outbox_0000'],
      [200, 'req_outbox_0001'],
      [300, 'req_outbox_0002'],
    ]);
    t.is(await drainUsageOutbox(db), 3);
    t.is(await countOf(db, 'usage_outbox'), 0);
    t.is(await drainUsageOutbox(db), 0, 'a second move finds nothing');
  }
  const records = await db('usage_records').where({ account_id: account.id }).orderBy('request_id');
  t.deepEqual(
    records.map((row: Record<string, unknown>) => [row.request_id, Number(row.cost_units), Number(row.input_tokens), Number(row.cached_input_tokens), Number(row.reasoning_tokens), Number(row.images), row.ttft_ms === null ? null : Number(row.ttft_ms), Boolean(row.estimated), row.endpoint]),
    [
      ['req_outbox_0000', 100, 10, 1, 3, 2, 7, false, 'chat-completions'],
      ['req_outbox_0001', 200, 10, 1, 3, 0, null, false, 'chat-completions'],
      ['req_outbox_0002', 300, 10, 1, 3, 0, null, false, 'chat-completions'],
    ],
  );
  await assertLedgerInvariants(t, db);
});

testOnBackends('moves running at once (two processes draining) copy each record exactly once, across several batches', async (t, { db }) => {
  await settleAlone(db, 1_203, 'race');
  const moved = await Promise.all([drainUsageOutbox(db), drainUsageOutbox(db), drainUsageOutbox(db)]);
  t.is(moved.reduce((sum, count) => sum + count, 0), isPostgres(db) ? 0 : 1_203);
  t.is(await countOf(db, 'usage_records'), 1_203);
  const duplicates = await db('usage_records').select('request_id').groupBy('request_id').havingRaw('COUNT(*) > 1');
  t.deepEqual(duplicates, []);
  const total = await db('usage_records').sum({ cost: 'cost_units' }).first();
  t.is(Number(total!.cost), (100 * 1_203 * 1_204) / 2, 'each record costs its charge');
});

testOnBackends("a serving process's mover moves at start and at close, and a failed move keeps the rows for the next", async (t, { db }) => {
  await settleAlone(db, 2, 'mover');
  const logger = createLogger('silent', 'stderr');
  const outbox = new UsageOutbox(db, logger, 60_000);
  outbox.start(); // moves now, then every minute
  await outbox.drain();
  t.is(await countOf(db, 'usage_records'), 2);
  await settleAlone(db, 1, 'mover-late');
  if (!isPostgres(db)) {
    t.is(await countOf(db, 'usage_outbox'), 1, 'waiting for the next tick');
    // A move that fails (the table gone for a moment: what an unreachable database looks like to it) drops nothing.
    await db.raw('ALTER TABLE usage_outbox RENAME TO usage_outbox_away');
    await outbox.drain();
    await db.raw('ALTER TABLE usage_outbox_away RENAME TO usage_outbox');
    t.is(await countOf(db, 'usage_outbox'), 1, 'still waiting after the failed move');
  }
  await outbox.close();
  t.is(await countOf(db, 'usage_records'), 3, 'the last move at close');
  if (!isPostgres(db)) t.is(await countOf(db, 'usage_outbox'), 0);
});
