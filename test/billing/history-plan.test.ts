// The history page's query walks the account's own index (ledger_account_id) on both
// databases, from its newest row, with a cursor too, when the account is one among many — not
// the whole table's primary key filtered by account, a scan of everyone's rows. (With a single
// account owning every row, as in bench/scale.mjs, both planners rightly walk the primary key:
// every row passes the filter.)
import test from 'ava';
import { Accounts } from '../../src/accounts/accounts.js';
import { readHistory } from '../../src/billing/history.js';
import { Ledger } from '../../src/billing/ledger.js';
import { testOnBackends } from '../helpers/backends.js';

testOnBackends('history pages use the (account_id, id) index, first page and deep cursor, among many accounts', async (t, { db, backend }) => {
  const accounts = new Accounts(db);
  const ledger = new Ledger(db);
  const big = await accounts.create('big');
  const small = await accounts.create('small');
  // 3,000 rows of one account around 30 of another: the small account's rows are rare.
  const rows = Array.from({ length: 3_030 }, (_, index) => ({
    account_id: index % 101 === 0 ? small.id : big.id,
    kind: 'topup',
    amount_units: 1,
    balance_after_units: index + 1,
    created_at: 1_795_000_000_000 + index,
  }));
  for (let start = 0; start < rows.length; start += 200) await db.batchInsert('ledger_transactions', rows.slice(start, start + 200), 200);
  // PostgreSQL's autovacuum gathers statistics; SQLite has none unless ANALYZE runs (the gateway never runs it).
  if (backend === 'postgres') await db.raw('ANALYZE ledger_transactions');

  // The query readHistory sends, captured from knex, then explained.
  const sent: { sql: string; bindings: readonly unknown[] }[] = [];
  const capture = (query: { sql: string; bindings: readonly unknown[] }) => sent.push(query);
  db.on('query', capture);
  const first = await readHistory(db, small.id, { limit: 5 });
  await readHistory(db, small.id, { limit: 5, cursor: first.next_cursor! });
  db.off('query', capture);
  t.is(first.data.length, 5);
  t.is(sent.length, 2);
  for (const query of sent) {
    const plan =
      backend === 'sqlite'
        ? ((await db.raw(`EXPLAIN QUERY PLAN ${query.sql}`, query.bindings as never[])) as { detail: string }[]).map((row) => row.detail).join(' | ')
        : await db.transaction(async (trx) => {
            await trx.raw('SET LOCAL enable_seqscan = off');
            const explained = await trx.raw(`EXPLAIN ${query.sql.replace(/\$\d+/g, '?')}`, query.bindings as never[]);
            return (explained.rows as Record<string, string>[]).map((row) => row['QUERY PLAN']).join(' | ');
          });
    t.regex(plan, /ledger_account_id/, plan);
    t.notRegex(plan, /Filter: .*account_id|USING INTEGER PRIMARY KEY/, plan);
  }
});
