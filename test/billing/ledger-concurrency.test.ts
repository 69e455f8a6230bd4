import { Accounts } from '../../src/accounts/accounts.js';
import { InsufficientBalanceError } from '../../src/billing/errors.js';
import { Ledger } from '../../src/billing/ledger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

testOnBackends('200 concurrent holds against a balance covering 150: exactly 150 succeed', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('concurrent');
  const holdUnits = 1_337n;
  await ledger.credit(account.id, holdUnits * 150n, 'topup');
  const results = await Promise.allSettled(Array.from({ length: 200 }, () => ledger.hold(account.id, holdUnits, { ttlMs: 60_000 })));
  const succeeded = results.filter((r) => r.status === 'fulfilled');
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  t.is(succeeded.length, 150);
  t.is(failed.length, 50);
  t.true(failed.every((r) => r.reason instanceof InsufficientBalanceError), 'every failure is the insufficient-balance error');
  const summary = await ledger.balance(account.id);
  t.is(summary.availableUnits, 0n);
  await assertLedgerInvariants(t, db);

  // Settle half and release the other half, concurrently too.
  const holds = succeeded.map((r) => (r as PromiseFulfilledResult<{ id: string }>).value);
  await Promise.all(holds.map((hold, i) => (i % 2 === 0 ? ledger.settle(hold.id, holdUnits - 1n) : ledger.release(hold.id))));
  const after = await ledger.balance(account.id);
  t.is(after.heldUnits, 0n);
  t.is(after.balanceUnits, holdUnits * 150n - 75n * (holdUnits - 1n));
  await assertLedgerInvariants(t, db);
}, { poolMax: 10 }); // ten connections racing for the same account row on PostgreSQL
