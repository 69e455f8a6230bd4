import { Accounts } from '../../src/accounts/accounts.js';
import { AccountNotFoundError, HoldClosedError, InsufficientBalanceError } from '../../src/billing/errors.js';
import { Ledger } from '../../src/billing/ledger.js';
import { drainUsageOutbox } from '../../src/billing/usage-outbox.js';
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

testOnBackends('a settle writes its usage record with the charge it computed, exactly once, alone, grouped and inside a transaction', async (t, { db }) => {
  const ledger = new Ledger(db);
  const account = await new Accounts(db).create('usage-with-settle');
  await ledger.credit(account.id, 100_000n, 'topup');
  const usage = (requestId: string) => ({
    request_id: requestId,
    account_id: account.id,
    key_id: 'key_1',
    endpoint: '/v1/chat/completions',
    model: 'sim/chat',
    provider: 'sim',
    upstream_model: 'chat-1',
    status: 'completed' as const,
    input_tokens: 12,
    cached_input_tokens: 2,
    cache_write_input_tokens: 0,
    output_tokens: 40,
    reasoning_tokens: 7,
    estimated: true,
    latency_ms: 321,
    ttft_ms: null,
    finish_reason: 'stop',
    created_at: 1_764_000_000_123,
    images: 2,
  });
  const alone = await ledger.hold(account.id, 5_000n, { ttlMs: 60_000 });
  await ledger.settle(alone.id, 9_999n, { requestId: 'req_alone', usage: usage('req_alone') }); // capped at 5,000
  // Three settles queued in one tick run as one group.
  const grouped = await Promise.all([1, 2, 3].map(() => ledger.hold(account.id, 1_000n, { ttlMs: 60_000 })));
  await Promise.all(grouped.map((hold, index) => ledger.settle(hold.id, BigInt(100 * (index + 1)), { requestId: `req_g${index}`, usage: usage(`req_g${index}`) })));
  const within = await ledger.hold(account.id, 1_000n, { ttlMs: 60_000 });
  await db.transaction((transaction) => ledger.settle(within.id, 250n, { requestId: 'req_within', usage: usage('req_within'), within: transaction }));
  // A settle of a closed hold writes nothing, and neither does one without a record.
  await t.throwsAsync(ledger.settle(alone.id, 1n, { usage: usage('req_again') }), { instanceOf: HoldClosedError });
  const bare = await ledger.hold(account.id, 1_000n, { ttlMs: 60_000 });
  await ledger.settle(bare.id, 10n, { requestId: 'req_bare' });

  await drainUsageOutbox(db); // SQLite: the settles run alone left their records in the outbox
  const records = await db('usage_records').orderBy('request_id');
  t.deepEqual(
    records.map((row: Record<string, unknown>) => [row.request_id, Number(row.cost_units)]),
    [
      ['req_alone', 5_000],
      ['req_g0', 100],
      ['req_g1', 200],
      ['req_g2', 300],
      ['req_within', 250],
    ],
  );
  // The record as given, every field stored as sent (the databases give numbers and booleans their own way), the media units absent as 0.
  const row = records[0] as Record<string, unknown>;
  const numeric = ['input_tokens', 'cached_input_tokens', 'cache_write_input_tokens', 'output_tokens', 'reasoning_tokens', 'latency_ms', 'created_at', 'images', 'characters', 'audio_seconds', 'video_seconds'];
  const stored = Object.fromEntries(Object.entries(row).map(([name, value]) => [name, numeric.includes(name) ? Number(value) : name === 'estimated' ? Boolean(value) : value]));
  t.like(stored, { ...usage('req_alone'), characters: 0, audio_seconds: 0, video_seconds: 0 });
  await assertLedgerInvariants(t, db);
});
