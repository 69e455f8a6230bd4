// Settles the database could not take are retried until they land, exactly once: a retry
// after an ambiguous failure (committed, answer lost) charges nothing more; beyond the cap a
// settle is not kept (counted), its hold left for the sweeps, uncharged.
import { pino } from 'pino';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import { PendingSettles } from '../../src/billing/pending-settles.js';
import { placeHold } from '../../src/billing/hold-statements.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';

const silent = pino({ level: 'silent' });
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A ledger whose settles and releases fail as an unreachable database would ('down'), or land and then lose their answer ('ambiguous'). */
function flakyLedger(ledger: Ledger) {
  const state = { mode: 'up' as 'up' | 'down' | 'ambiguous' };
  const flaky = Object.create(ledger) as Ledger;
  flaky.settle = async (...args: Parameters<Ledger['settle']>) => {
    if (state.mode === 'down') throw refused();
    const settled = await ledger.settle(...args);
    if (state.mode === 'ambiguous') throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    return settled;
  };
  flaky.release = async (...args: Parameters<Ledger['release']>) => {
    if (state.mode !== 'up') throw refused();
    return ledger.release(...args);
  };
  return { flaky, state };
}

testOnBackends('a settle whose answer was lost is retried and found settled: charged exactly once', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('ambiguous');
  await ledger.credit(account.id, 100_000n, 'topup');
  const { flaky, state } = flakyLedger(ledger);
  const settles = new PendingSettles(flaky, silent, { cap: 10, retryBaseMs: 5, retryMaxMs: 20 });
  const hold = await ledger.hold(account.id, 5_000n, { ttlMs: 60_000 });
  state.mode = 'ambiguous';
  const settlement = await settles.settle(hold, 3_000n, { requestId: 'req_a' });
  t.deepEqual(settlement, { chargedUnits: 3_000n, capped: false, deferred: true });
  t.is(settles.size, 1);
  state.mode = 'up';
  await eventually(() => settles.size === 0, { what: 'every kept settle landed', intervalMs: 5 });
  const charges = await db('ledger_transactions').where({ hold_id: hold.id, kind: 'charge' });
  t.is(charges.length, 1);
  t.is(BigInt(charges[0].amount_units), -3_000n);
  t.is((await ledger.balance(account.id)).balanceUnits, 97_000n);
  await assertLedgerInvariants(t, db);
});

testOnBackends('an outage: settles and releases wait and land once it is over; beyond the cap one is not kept and is counted', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('outage');
  await ledger.credit(account.id, 100_000n, 'topup');
  const { flaky, state } = flakyLedger(ledger);
  const sizes: number[] = [];
  let dropped = 0;
  const settles = new PendingSettles(flaky, silent, { cap: 3, retryBaseMs: 5, retryMaxMs: 20, onSize: (size) => sizes.push(size), onDropped: (count) => (dropped += count) });
  const holds = await Promise.all([1_000n, 2_000n, 4_000n, 8_000n].map((amount) => ledger.hold(account.id, amount, { ttlMs: 60_000 })));
  state.mode = 'down';
  t.like(await settles.settle(holds[0]!, 500n), { chargedUnits: 500n, deferred: true });
  t.like(await settles.settle(holds[1]!, 9_000n), { chargedUnits: 2_000n, capped: true, deferred: true });
  await settles.release(holds[2]!.id);
  t.is(settles.size, 3);
  // The list is full: this settle is not kept, and says it charges nothing.
  t.like(await settles.settle(holds[3]!, 1_000n), { chargedUnits: 0n, deferred: true });
  t.is(dropped, 1);
  t.is(settles.size, 3);
  state.mode = 'up';
  await eventually(() => settles.size === 0, { what: 'every kept settle landed', intervalMs: 5 });
  t.is(sizes.at(-1), 0);
  const statuses = await Promise.all(holds.map((hold) => ledger.holdStatus(hold.id)));
  t.deepEqual(statuses, ['settled', 'settled', 'released', 'active']);
  t.is((await ledger.balance(account.id)).balanceUnits, 100_000n - 500n - 2_000n);
  // The dropped settle's hold is left for the sweeps; released here as holds.ttl would.
  t.true(await ledger.release(holds[3]!.id));
  await assertLedgerInvariants(t, db);
});

testOnBackends('a hold whose answer was lost (committed, then the connection cut) is released once the database answers; one that never landed leaves nothing', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('uncertain-hold');
  await ledger.credit(account.id, 100_000n, 'topup');
  // The hold statement runs (and commits), then its answer is lost ('ambiguous'), or it fails before running ('down').
  let mode: 'ambiguous' | 'down' = 'ambiguous';
  const flaky = Object.create(ledger) as Ledger;
  const run = (ledger as any).run.bind(ledger);
  (flaky as any).run = async (within: unknown, statement: unknown, bindings: unknown) => {
    if (statement === placeHold && mode === 'down') throw refused();
    const rows = await run(within, statement, bindings);
    if (statement === placeHold) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    return rows;
  };
  const settles = new PendingSettles(flaky, silent, { cap: 10, retryBaseMs: 5, retryMaxMs: 20 });

  await t.throwsAsync(settles.hold(account.id, 5_000n, { ttlMs: 3_600_000, requestId: 'req_lost' }), { code: 'ECONNRESET' });
  await eventually(() => settles.size === 0, { what: 'the kept release landed', intervalMs: 5 });
  const holds = await db('holds').where({ account_id: account.id });
  t.is(holds.length, 1, 'the hold had been committed');
  t.is(holds[0].status, 'released');
  t.is((await ledger.balance(account.id)).heldUnits, 0n);

  mode = 'down';
  await t.throwsAsync(settles.hold(account.id, 5_000n, { ttlMs: 3_600_000, requestId: 'req_never' }), { code: 'ECONNREFUSED' });
  await eventually(() => settles.size === 0, { what: 'every kept settle landed', intervalMs: 5 });
  t.is((await db('holds').where({ account_id: account.id })).length, 1, 'no second hold');
  t.is((await ledger.balance(account.id)).balanceUnits, 100_000n);
  await assertLedgerInvariants(t, db);
});
