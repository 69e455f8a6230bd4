import test from 'ava';
import { Accounts } from '../../src/accounts/accounts.js';
import { InsufficientBalanceError } from '../../src/billing/errors.js';
import { Ledger } from '../../src/billing/ledger.js';
import { hotStatements } from '../../src/db/hot-statements.js';
import { assertLedgerInvariants, countRun, createTestDatabase, testOnBackends } from '../helpers/backends.js';

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

test('SQLite: a connection with prepared statements still closes', async (t) => {
  const database = await createTestDatabase('sqlite');
  const ledger = new Ledger(database.db);
  const account = await new Accounts(database.db).create('closing');
  await ledger.credit(account.id, 1_000n, 'topup');
  await ledger.release((await ledger.hold(account.id, 10n, { ttlMs: 60_000 })).id);
  await t.notThrowsAsync(database.drop());
  countRun('sqlite');
});
