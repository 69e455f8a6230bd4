import { Accounts } from '../../src/accounts/accounts.js';
import { AccountNotFoundError, HoldClosedError, InsufficientBalanceError } from '../../src/billing/errors.js';
import { Ledger } from '../../src/billing/ledger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

const ttlMs = 60_000;

testOnBackends('topup, hold, settle below the hold: charge written, rest released', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('alice');
  const topup = await ledger.credit(account.id, 100_000n, 'topup', { description: 'first' });
  t.is(topup.balanceUnits, 100_000n);
  const hold = await ledger.hold(account.id, 30_000n, { ttlMs, model: 'sim/chat', requestId: 'req_1' });
  t.deepEqual(await ledger.balance(account.id), { accountId: account.id, balanceUnits: 100_000n, heldUnits: 30_000n, availableUnits: 70_000n });
  const settlement = await ledger.settle(hold.id, 12_345n);
  t.is(settlement.chargedUnits, 12_345n);
  t.false(settlement.capped);
  t.deepEqual(await ledger.balance(account.id), { accountId: account.id, balanceUnits: 87_655n, heldUnits: 0n, availableUnits: 87_655n });
  const charge = await db('ledger_transactions').where({ kind: 'charge' }).first();
  t.is(Number(charge.amount_units), -12_345);
  t.is(charge.model, 'sim/chat');
  t.is(charge.request_id, 'req_1');
  t.is(charge.hold_id, hold.id);
  await assertLedgerInvariants(t, db);
});

testOnBackends('settle and release happen at most once per hold', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('bob');
  await ledger.credit(account.id, 50_000n, 'topup');
  const hold = await ledger.hold(account.id, 10_000n, { ttlMs });
  await ledger.settle(hold.id, 5_000n);
  await t.throwsAsync(ledger.settle(hold.id, 5_000n), { instanceOf: HoldClosedError });
  t.false(await ledger.release(hold.id));
  const second = await ledger.hold(account.id, 10_000n, { ttlMs });
  t.true(await ledger.release(second.id));
  t.false(await ledger.release(second.id));
  await t.throwsAsync(ledger.settle(second.id, 1n), { instanceOf: HoldClosedError });
  t.is((await ledger.balance(account.id)).balanceUnits, 45_000n);
  t.is(await db('ledger_transactions').where({ kind: 'charge' }).count({ n: '*' }).first().then((r) => Number(r!.n)), 1);
  await assertLedgerInvariants(t, db);
});

testOnBackends('a charge above the hold is capped at the hold; zero actual cost writes no row', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('carol');
  await ledger.credit(account.id, 50_000n, 'topup');
  const hold = await ledger.hold(account.id, 10_000n, { ttlMs });
  const capped = await ledger.settle(hold.id, 99_999n);
  t.is(capped.chargedUnits, 10_000n);
  t.true(capped.capped);
  const free = await ledger.hold(account.id, 10_000n, { ttlMs });
  const zero = await ledger.settle(free.id, 0n);
  t.is(zero.chargedUnits, 0n);
  t.is(Number((await db('ledger_transactions').where({ hold_id: free.id }).count({ n: '*' }).first())?.n), 0, 'a zero charge writes no ledger row');
  t.is((await ledger.balance(account.id)).balanceUnits, 40_000n);
  await assertLedgerInvariants(t, db);
});

testOnBackends('holds beyond the available balance are refused with what was needed and what is available', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('dave');
  await ledger.credit(account.id, 10_000n, 'topup');
  await ledger.hold(account.id, 6_000n, { ttlMs });
  const error = await t.throwsAsync(ledger.hold(account.id, 5_000n, { ttlMs }), { instanceOf: InsufficientBalanceError });
  t.is(error!.neededUnits, 5_000n);
  t.is(error!.availableUnits, 4_000n);
  t.regex(error!.message, /needs 0\.5000 RUB, 0\.4000 RUB is available/);
  await t.throwsAsync(ledger.hold('acc_missing', 1n, { ttlMs }), { instanceOf: AccountNotFoundError });
  await assertLedgerInvariants(t, db);
});

testOnBackends('a negative adjustment cannot take held money; credits of other kinds must be positive', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('erin');
  await ledger.credit(account.id, 10_000n, 'topup');
  await ledger.credit(account.id, 2_000n, 'bonus');
  await ledger.hold(account.id, 9_000n, { ttlMs });
  await t.throwsAsync(ledger.credit(account.id, -4_000n, 'adjustment'), { instanceOf: InsufficientBalanceError });
  const adjusted = await ledger.credit(account.id, -3_000n, 'adjustment', { description: 'correction' });
  t.is(adjusted.balanceUnits, 9_000n);
  await t.throwsAsync(ledger.credit(account.id, -1n, 'topup'), { instanceOf: RangeError });
  await assertLedgerInvariants(t, db);
});

testOnBackends('the sweeper releases expired holds only', async (t, { db }) => {
  let now = 1_000_000;
  const ledger = new Ledger(db, () => now);
  const account = await new Accounts(db).create('frank');
  await ledger.credit(account.id, 10_000n, 'topup');
  const old = await ledger.hold(account.id, 1_000n, { ttlMs: 1_000 });
  const fresh = await ledger.hold(account.id, 2_000n, { ttlMs: 60_000 });
  now += 5_000;
  t.is(await ledger.releaseExpired(), 1);
  t.is((await db('holds').where({ id: old.id }).first()).status, 'released');
  t.is((await db('holds').where({ id: fresh.id }).first()).status, 'active');
  t.is((await ledger.balance(account.id)).heldUnits, 2_000n);
  t.is(await ledger.releaseExpired(), 0);
  await assertLedgerInvariants(t, db);
});

testOnBackends('the database itself refuses a negative balance', async (t, { db }) => {
  const account = await new Accounts(db).create('grace');
  await t.throwsAsync(db('accounts').where({ id: account.id }).update({ balance_units: -1 }));
});
