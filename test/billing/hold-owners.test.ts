// The sweep of dead processes' holds, with an injected clock: the holds of an instance whose
// heartbeat stopped are released once it is older than owner_gone_after; a beating instance's
// holds and a job's hold (no instance) are never touched; a sweeper that has not itself seen
// the database for a whole window (its start, an outage) releases nothing.
import { pino } from 'pino';
import { Accounts } from '../../src/accounts/accounts.js';
import { HoldOwner } from '../../src/billing/hold-owners.js';
import { Ledger } from '../../src/billing/ledger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

const silent = pino({ level: 'silent' });
const options = { heartbeatMs: 1_000, goneAfterMs: 5_000 };

testOnBackends('a dead instance\'s request holds are released by a live peer; a live one\'s and a job\'s stay', async (t, { db }) => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const ledger = new Ledger(db, clock);
  const account = await new Accounts(db).create('owners');
  await ledger.credit(account.id, 1_000_000n, 'topup');
  const dead = new HoldOwner(db, ledger, silent, { ...options, now: clock });
  const live = new HoldOwner(db, ledger, silent, { ...options, now: clock });
  const sweeper = new HoldOwner(db, ledger, silent, { ...options, now: clock });
  for (const owner of [dead, live, sweeper]) await owner.register();
  const ttlMs = 3_600_000;
  const deadHolds = [await ledger.hold(account.id, 1_000n, { ttlMs, instanceId: dead.id }), await ledger.hold(account.id, 2_000n, { ttlMs, instanceId: dead.id })];
  const liveHold = await ledger.hold(account.id, 4_000n, { ttlMs, instanceId: live.id });
  const jobHold = await db.transaction((trx) => ledger.hold(account.id, 8_000n, { ttlMs, within: trx }));
  t.is((await db('holds').where({ id: liveHold.id }).first()).instance_id, live.id);
  t.is((await db('holds').where({ id: jobHold.id }).first()).instance_id, null);

  // Within the window nothing is released: the sweeper itself has only just started.
  now += 4_999;
  await live.beat();
  await sweeper.beat();
  t.is(await sweeper.sweep(), 0);
  t.is((await ledger.balance(account.id)).heldUnits, 15_000n);

  // The dead instance's heartbeat is now older than owner_gone_after; the live one beat 1 ms ago.
  now += 2;
  await live.beat();
  t.is(await sweeper.sweep(), 2);
  for (const hold of deadHolds) t.is((await db('holds').where({ id: hold.id }).first()).status, 'released');
  t.is((await db('holds').where({ id: liveHold.id }).first()).status, 'active');
  t.is((await db('holds').where({ id: jobHold.id }).first()).status, 'active');
  t.is((await ledger.balance(account.id)).heldUnits, 12_000n);
  // The dead instance's row is gone with its last hold; the others remain.
  t.deepEqual((await db('instances').select('id').orderBy('id')).map((row: { id: string }) => row.id).sort(), [live.id, sweeper.id].sort());

  // A live process with a long request: it keeps beating, so hours later its hold is still active.
  for (let beat = 0; beat < 20; beat++) {
    now += 1_000;
    await live.beat();
    await sweeper.beat();
    t.is(await sweeper.sweep(), 0);
  }
  t.is((await db('holds').where({ id: liveHold.id }).first()).status, 'active');
  t.true(await ledger.release(liveHold.id));
  t.true(await ledger.release(jobHold.id));
  await assertLedgerInvariants(t, db);
});

testOnBackends('after an outage every heartbeat is old: a sweeper waits one window of its own beats, so a live peer beats first', async (t, { db }) => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const ledger = new Ledger(db, clock);
  const account = await new Accounts(db).create('outage');
  await ledger.credit(account.id, 1_000_000n, 'topup');
  const peer = new HoldOwner(db, ledger, silent, { ...options, now: clock });
  await peer.register();
  const peerHold = await ledger.hold(account.id, 5_000n, { ttlMs: 3_600_000, instanceId: peer.id });
  // The sweeper's database handle can be cut (every query it starts fails, as when unreachable).
  let reachable = true;
  const cuttable = new Proxy(db, {
    apply: (target, self, args: unknown[]) => {
      if (!reachable) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      return Reflect.apply(target, self, args);
    },
  });
  const sweeper = new HoldOwner(cuttable, ledger, silent, { ...options, now: clock });
  await sweeper.register();
  now += 6_000;
  await peer.beat();
  await sweeper.beat();
  // The database is unreachable for 30 s: every beat fails.
  reachable = false;
  for (let second = 0; second < 30; second++) {
    now += 1_000;
    await sweeper.beat();
  }
  t.is(await sweeper.sweep(), 0, 'no sweep while its own heartbeat fails');
  // The database is back: the sweeper's beat lands before the peer's, whose heartbeat is 30 s
  // old; the sweeper has not seen the database for a whole window yet.
  reachable = true;
  now += 1;
  await sweeper.beat();
  t.is(await sweeper.sweep(), 0);
  now += 1_000;
  await peer.beat();
  for (let second = 0; second < 5; second++) {
    now += 1_000;
    await peer.beat();
    await sweeper.beat();
  }
  t.is(await sweeper.sweep(), 0, 'the peer beat again after the outage: its hold is its own');
  t.is((await db('holds').where({ id: peerHold.id }).first()).status, 'active');
  t.true(await ledger.release(peerHold.id));
  await assertLedgerInvariants(t, db);
});
