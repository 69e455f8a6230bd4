// Operator corrections (issue 18): balance adjustments and refunds, exact and all-or-nothing,
// each with its audit row, under concurrency, on both databases.
import { Accounts } from '../../src/accounts/accounts.js';
import { readAudit } from '../../src/audit/audit-log.js';
import { AdjustmentRefusedError, AlreadyRefundedError, ChargeNotFoundError, Corrections } from '../../src/billing/corrections.js';
import { Ledger } from '../../src/billing/ledger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

const actor = 'cli:test@host';
const count = async (db: import('knex').Knex, table: string) => Number((await db(table).count({ n: '*' }).first())!.n);

testOnBackends('an adjustment adds or removes exactly, with its ledger row and audit row; one taking held money is refused, nothing written', async (t, { db }) => {
  const ledger = new Ledger(db, () => 1_000);
  const corrections = new Corrections(db, ledger, () => 2_000);
  const account = await new Accounts(db).create('adjusted');
  await ledger.credit(account.id, 10_000n, 'topup');
  const hold = await ledger.hold(account.id, 3_000n, { ttlMs: 60_000 });

  const added = await corrections.adjust({ accountId: account.id, amountUnits: 1_234n, reason: 'goodwill', actor });
  t.is(added.balanceUnits, 11_234n);
  const ledgerRows = await count(db, 'ledger_transactions');
  const auditRows = await count(db, 'audit_log');
  // Available: 11,234 - 3,000 held = 8,234. One unit more is refused, whole.
  const refused = await t.throwsAsync(corrections.adjust({ accountId: account.id, amountUnits: -8_235n, reason: 'too much', actor }), { instanceOf: AdjustmentRefusedError });
  t.is(refused.availableUnits, 8_234n);
  t.is(await count(db, 'ledger_transactions'), ledgerRows, 'no ledger row');
  t.is(await count(db, 'audit_log'), auditRows, 'no audit row');
  t.like(await ledger.balance(account.id), { balanceUnits: 11_234n, heldUnits: 3_000n });

  const removed = await corrections.adjust({ accountId: account.id, amountUnits: -8_234n, reason: 'double topup', actor });
  t.is(removed.balanceUnits, 3_000n);
  t.like(await ledger.balance(account.id), { balanceUnits: 3_000n, heldUnits: 3_000n, availableUnits: 0n });
  // The held money is still there to settle.
  t.is((await ledger.settle(hold.id, 3_000n)).chargedUnits, 3_000n);
  t.like(await ledger.balance(account.id), { balanceUnits: 0n, heldUnits: 0n });

  const row = await db('ledger_transactions').where({ account_id: account.id, kind: 'adjustment' }).orderBy('id', 'desc').first();
  t.like(row, { description: 'double topup' });
  t.is(BigInt(row.amount_units), -8_234n);
  const audit = await readAudit(db, { accountId: account.id, limit: 10 });
  t.deepEqual(
    audit.map((entry) => ({ at: entry.at, actor: entry.actor, action: entry.action, target: entry.target, details: entry.details })),
    [
      { at: 2_000, actor, action: 'balance.adjust', target: account.id, details: { amount_rub: '-0.8234', reason: 'double topup', transaction_id: `txn_${removed.transactionId}`, balance_rub: '0.3000' } },
      { at: 2_000, actor, action: 'balance.adjust', target: account.id, details: { amount_rub: '0.1234', reason: 'goodwill', transaction_id: `txn_${added.transactionId}`, balance_rub: '1.1234' } },
    ],
  );
  await assertLedgerInvariants(t, db);
});

testOnBackends('40 concurrent adjustments of -X against an available 25X (beside a hold): exactly 25 succeed, balance == sum(ledger)', async (t, { db }) => {
  const ledger = new Ledger(db);
  const corrections = new Corrections(db, ledger);
  const account = await new Accounts(db).create('racing');
  const x = 777n;
  await ledger.credit(account.id, 25n * x + 5_000n, 'topup');
  await ledger.hold(account.id, 5_000n, { ttlMs: 60_000 });
  const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => corrections.adjust({ accountId: account.id, amountUnits: -x, reason: `take ${i}`, actor })));
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  t.is(results.length - failed.length, 25);
  t.true(failed.every((r) => r.reason instanceof AdjustmentRefusedError), failed.map((r) => String(r.reason)).join('; '));
  t.like(await ledger.balance(account.id), { balanceUnits: 5_000n, heldUnits: 5_000n, availableUnits: 0n });
  t.is(await count(db, 'audit_log'), 25, 'one audit row per adjustment made, none for a refused one');
  t.is(Number((await db('ledger_transactions').where({ kind: 'adjustment' }).count({ n: '*' }).first())!.n), 25);
  await assertLedgerInvariants(t, db);
}, { poolMax: 10 });

testOnBackends('a refund gives one charge back, once: by request id or job id; a second or concurrent one is refused, nothing written', async (t, { db }) => {
  const ledger = new Ledger(db, () => 1_000);
  const corrections = new Corrections(db, ledger, () => 3_000);
  const account = await new Accounts(db).create('refunded');
  await ledger.credit(account.id, 100_000n, 'topup');
  const charge = async (requestId: string, units: bigint) => {
    const hold = await ledger.hold(account.id, units + 100n, { ttlMs: 60_000, requestId, model: 'm/chat' });
    await ledger.settle(hold.id, units);
    return hold;
  };
  await charge('req_one', 4_321n);
  await charge('req_two', 1_111n);
  const jobHold = await charge('req_submitting_a_job', 2_500n);
  await db('jobs').insert({
    id: 'video_job1', kind: 'video', account_id: account.id, key_id: 'key_x', model: 'm/video', status: 'completed', progress: 100, request: '{}',
    request_hash: 'h', endpoint: 'videos', hold_id: jobHold.id, hold_units: 2_600, charged_units: 2_500, polls: 0, next_run_at: 0, deadline_at: 0,
    request_id: 'req_submitting_a_job', created_at: 0, updated_at: 0,
  });
  t.is((await ledger.balance(account.id)).balanceUnits, 100_000n - 4_321n - 1_111n - 2_500n);

  const first = await corrections.refund({ reference: 'req_one', reason: 'garbage answer', actor });
  t.like(first, { accountId: account.id, amountUnits: 4_321n, balanceUnits: 100_000n - 1_111n - 2_500n, requestId: 'req_one', jobId: null });
  const rows = await count(db, 'ledger_transactions');
  await t.throwsAsync(corrections.refund({ reference: 'req_one', reason: null, actor }), { instanceOf: AlreadyRefundedError });
  await t.throwsAsync(corrections.refund({ reference: 'req_none', reason: null, actor }), { instanceOf: ChargeNotFoundError });
  t.is(await count(db, 'ledger_transactions'), rows, 'nothing written by the refused refunds');

  // Ten at once: one refund.
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => corrections.refund({ reference: 'req_two', reason: null, actor })));
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  t.is(results.length - failed.length, 1);
  t.true(failed.every((r) => r.reason instanceof AlreadyRefundedError), failed.map((r) => String(r.reason)).join('; '));

  // A job by its id (its charge carries the submitting request's id, which works as well).
  const job = await corrections.refund({ reference: 'video_job1', reason: 'bad video', actor });
  t.like(job, { amountUnits: 2_500n, jobId: 'video_job1', requestId: 'req_submitting_a_job', holdId: jobHold.id });
  await t.throwsAsync(corrections.refund({ reference: 'req_submitting_a_job', reason: null, actor }), { instanceOf: AlreadyRefundedError });

  t.is((await ledger.balance(account.id)).balanceUnits, 100_000n);
  const refunds = await db('ledger_transactions').where({ kind: 'refund' }).orderBy('id');
  t.deepEqual(refunds.map((row) => [BigInt(row.amount_units), row.request_id]), [[4_321n, 'req_one'], [1_111n, 'req_two'], [2_500n, 'req_submitting_a_job']]);
  const audit = await readAudit(db, { action: 'balance.refund', limit: 10 });
  t.deepEqual(audit.map((entry) => [entry.target, entry.details.amount_rub, entry.details.reason, entry.at]), [
    ['video_job1', '0.2500', 'bad video', 3_000],
    ['req_two', '0.1111', null, 3_000],
    ['req_one', '0.4321', 'garbage answer', 3_000],
  ]);
  await assertLedgerInvariants(t, db);
}, { poolMax: 10 });
