// The index of holds covers active holds only (migrations 20261126120000, 20261127100000): a closed
// hold leaves it, so a settle changes one small index instead of moving entries inside two that grow
// with every request. These tests pin what that relies on: the sweeps' queries, as the code
// builds them (status bound as a parameter), still find active holds through the partial
// index, and the index holds the active holds and nothing else.
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger, type Hold } from '../../src/billing/ledger.js';
import { isPostgres } from '../../src/db/dialect.js';
import { testOnBackends } from '../helpers/backends.js';

/** The plan of the expiry sweep's query (Ledger.releaseExpired), as one line. */
const sweepPlan = (db: Knex) => planOf(db, db('holds').select('id').where({ status: 'active' }).andWhere('expires_at', '<', 1_900_000_000_000).orderBy('expires_at').limit(500));

/** The plan of `gateway backup`'s sum of the active holds per account (src/db/backup.ts), as one line. */
const activeHeldPlan = (db: Knex) => planOf(db, db('holds').where({ status: 'active' }).groupBy('account_id').select('account_id', db.raw('SUM(amount_units) AS held')));

async function planOf(db: Knex, builder: Knex.QueryBuilder): Promise<string> {
  const query = builder.toSQL().toNative();
  if (!isPostgres(db)) {
    const rows: { detail: string }[] = await db.raw(`EXPLAIN QUERY PLAN ${query.sql}`, query.bindings as never);
    return rows.map((row) => row.detail).join(' | ');
  }
  // A few rows: the planner would scan the table whatever the indexes; asked to avoid that, it
  // shows which index it can use for the bound value.
  return db.transaction(async (trx) => {
    await trx.raw('SET LOCAL enable_seqscan = off');
    const result = await trx.raw(`EXPLAIN ${query.sql.replace(/\$(\d+)/g, '?')}`, query.bindings as never);
    return (result.rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join(' | ');
  });
}

testOnBackends('the expiry sweep finds active holds through the partial index of active holds, and closed holds leave it', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('indexed');
  await ledger.credit(account.id, 10_000n, 'topup');
  const holds: Hold[] = [];
  for (let index = 0; index < 6; index++) holds.push(await ledger.hold(account.id, 100n, { ttlMs: 60_000 }));
  await ledger.settle(holds[0]!.id, 50n);
  await ledger.release(holds[1]!.id);
  t.regex(await sweepPlan(db), /holds_active_expiry/);
  t.regex(await activeHeldPlan(db), /holds_active_expiry/);
  // Each index is partial on active holds; on SQLite, read through the index itself, it holds the four active ones.
  const definitions = isPostgres(db)
    ? ((await db.raw("SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE tablename = 'holds' AND indexname LIKE 'holds_active_%' ORDER BY indexname")).rows as { name: string; sql: string }[])
    : ((await db.raw("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'holds' AND name LIKE 'holds_active_%' ORDER BY name")) as { name: string; sql: string }[]);
  // One index (20261127100000 dropped holds_active_account: no query needed it, every hold and settle wrote it).
  t.deepEqual(definitions.map((index) => index.name), ['holds_active_expiry']);
  for (const index of definitions) t.regex(index.sql, /WHERE \(?\(?status\)?(::text)? = 'active'/);
  if (!isPostgres(db)) {
    t.is(Number(((await db.raw("SELECT count(*) AS n FROM holds INDEXED BY holds_active_expiry WHERE status = 'active'")) as { n: number }[])[0]!.n), 4);
  }
  t.is(Number((await db('holds').count({ n: '*' }).first())!.n), 6, 'the closed holds stay in the table');
});
