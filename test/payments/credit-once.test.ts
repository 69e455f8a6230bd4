// The money rule of payments (src/payments/payments.ts), on both databases: whatever a provider
// reports, however often and however concurrently, a succeeded payment is credited once, with
// its tier bonus once, and a cancelled one never. The providers' own wires are tested with
// their simulators (yookassa*.test.ts, stripe*.test.ts); here `apply` is given what a provider
// reported, as a notification's read-back would give it.
import { pino } from 'pino';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import type { PaymentsConfig } from '../../src/config/load.js';
import { Payments } from '../../src/payments/payments.js';
import type { PaymentProvider, ProviderPayment } from '../../src/payments/provider.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

const settings: PaymentsConfig = {
  minUnits: 1_000_000n,
  maxUnits: 1_000_000_000n,
  presetsUnits: [],
  bonusTiers: [{ fromUnits: 50_000_000n, basisPoints: 1_000n }],
  sweepAfterMs: 60_000,
  yookassa: undefined,
  stripe: undefined,
};

/** Only what `apply` reads of a provider: its name, currency and rate. Apply never calls it. */
function reportedOnly(name: string, currency: string, rubRate: string): PaymentProvider {
  const unused = () => {
    throw new Error('apply must not call the provider');
  };
  return { name, currency, rubRate, create: unused, fetch: unused, refund: unused, list: unused, readNotification: unused, close: async () => undefined };
}

async function setUp(db: import('knex').Knex, provider: PaymentProvider) {
  const now = () => 1_800_000_000_000;
  const ledger = new Ledger(db, now);
  const account = await new Accounts(db, now).create('payer');
  const payments = new Payments(db, ledger, settings, new Map([[provider.name, provider]]), pino({ level: 'silent' }), now, { publicUrl: 'http://gateway.test', publicUrlConfigured: true });
  return { ledger, account, payments, now };
}

async function pendingPayment(db: import('knex').Knex, row: { id: string; accountId: string; provider: string; providerPaymentId: string; amountUnits: bigint; currency: string; amountMinor: bigint; rate: string | null }) {
  await db('payments').insert({
    id: row.id,
    account_id: row.accountId,
    provider: row.provider,
    provider_payment_id: row.providerPaymentId,
    status: 'pending',
    amount_units: row.amountUnits.toString(),
    currency: row.currency,
    amount_minor: row.amountMinor.toString(),
    rate: row.rate,
    created_at: 1,
    updated_at: 1,
  });
}

const reported = (patch: Partial<ProviderPayment>): ProviderPayment => ({ id: 'pp_1', status: 'succeeded', amountMinor: 50_000n, currency: 'rub', reference: 'pay_1', refundedMinor: 0n, createdAt: 1, ...patch });

testOnBackends('100 concurrent reports of one succeeded payment credit it once, with one tier bonus', async (t, { db }) => {
  const { ledger, account, payments } = await setUp(db, reportedOnly('yookassa', 'rub', '1'));
  // 5000 RUB: the 10% tier from 5000 applies.
  await pendingPayment(db, { id: 'pay_1', accountId: account.id, provider: 'yookassa', providerPaymentId: 'pp_1', amountUnits: 50_000_000n, currency: 'rub', amountMinor: 500_000n, rate: null });
  const results = await Promise.allSettled(Array.from({ length: 100 }, () => payments.apply('yookassa', reported({ amountMinor: 500_000n }))));
  t.deepEqual(
    results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason)),
    [],
  );
  t.like(await ledger.balance(account.id), { balanceUnits: 55_000_000n });
  const rows = await db('ledger_transactions').where({ account_id: account.id }).orderBy('id');
  t.deepEqual(
    rows.map((row: any) => [row.kind, BigInt(row.amount_units), row.source, row.request_id]),
    [
      ['topup', 50_000_000n, 'payment:yookassa:pp_1', 'pay_1'],
      ['bonus', 5_000_000n, 'payment-bonus:yookassa:pp_1', 'pay_1'],
    ],
  );
  const payment = await payments.find('pay_1');
  t.like(payment, { status: 'succeeded', creditedUnits: 50_000_000n, paidAt: 1_800_000_000_000 });
  t.is(Number((await db('audit_log').where({ action: 'payment.succeeded' }).count({ n: '*' }).first())!.n), 1);
  await assertLedgerInvariants(t, db);
});

testOnBackends('a cancelled payment credits nothing; a later success (out of order) still credits once', async (t, { db }) => {
  const { ledger, account, payments } = await setUp(db, reportedOnly('yookassa', 'rub', '1'));
  await pendingPayment(db, { id: 'pay_1', accountId: account.id, provider: 'yookassa', providerPaymentId: 'pp_1', amountUnits: 1_000_000n, currency: 'rub', amountMinor: 10_000n, rate: null });
  const cancelled = await payments.apply('yookassa', reported({ status: 'cancelled', amountMinor: 10_000n, failure: 'expired_on_confirmation' }));
  t.like(cancelled, { status: 'cancelled', failure: 'expired_on_confirmation' });
  t.like(await ledger.balance(account.id), { balanceUnits: 0n });
  // A provider that says pending after the cancel changes nothing; a success it reports later is money taken: credited.
  t.like(await payments.apply('yookassa', reported({ status: 'pending', amountMinor: 10_000n })), { status: 'cancelled' });
  await payments.apply('yookassa', reported({ amountMinor: 10_000n }));
  await payments.apply('yookassa', reported({ amountMinor: 10_000n }));
  t.like(await ledger.balance(account.id), { balanceUnits: 1_000_000n });
  // Cancelled after success (a stale report): stays succeeded.
  t.like(await payments.apply('yookassa', reported({ status: 'cancelled', amountMinor: 10_000n })), { status: 'succeeded' });
  await assertLedgerInvariants(t, db);
});

testOnBackends('a payment in dollars is credited at the configured rate, rounded down once', async (t, { db }) => {
  const { ledger, account, payments } = await setUp(db, reportedOnly('stripe', 'usd', '92.50'));
  // 500 RUB at 92.50 RUB/USD: 5.4054… USD, charged 5.41 (541 cents), credited 541 × 92.50 = 500.4250 RUB.
  await pendingPayment(db, { id: 'pay_1', accountId: account.id, provider: 'stripe', providerPaymentId: 'cs_1', amountUnits: 5_000_000n, currency: 'usd', amountMinor: 541n, rate: '92.50' });
  await payments.apply('stripe', reported({ id: 'cs_1', currency: 'usd', amountMinor: 541n }));
  t.like(await ledger.balance(account.id), { balanceUnits: 5_004_250n });
  const row = await db('ledger_transactions').where({ account_id: account.id }).first();
  t.is(row.source, 'payment:stripe:cs_1');
  t.regex(row.description, /541 usd minor units at 92\.50 RUB/);
});

testOnBackends('a report in another currency, or of a payment that is not ours, credits nothing', async (t, { db }) => {
  const { ledger, account, payments } = await setUp(db, reportedOnly('yookassa', 'rub', '1'));
  await pendingPayment(db, { id: 'pay_1', accountId: account.id, provider: 'yookassa', providerPaymentId: 'pp_1', amountUnits: 1_000_000n, currency: 'rub', amountMinor: 10_000n, rate: null });
  t.like(await payments.apply('yookassa', reported({ currency: 'usd', amountMinor: 10_000n })), { status: 'pending' });
  await t.throwsAsync(payments.apply('yookassa', reported({ id: 'pp_other', reference: 'pay_other' })), { message: /no payment pp_other/ });
  t.like(await ledger.balance(account.id), { balanceUnits: 0n });
  t.is(Number((await db('ledger_transactions').count({ n: '*' }).first())!.n), 0);
});

testOnBackends('a credit of a source already written is refused by the database itself', async (t, { db }) => {
  const ledger = new Ledger(db, () => 1);
  const account = await new Accounts(db).create('twice');
  await ledger.credit(account.id, 100n, 'bonus', { source: 'code:code_1:x' });
  const error = await t.throwsAsync(ledger.credit(account.id, 100n, 'bonus', { source: 'code:code_1:x' }));
  t.regex(String(error?.message), /unique|duplicate/i);
  t.like(await ledger.balance(account.id), { balanceUnits: 100n });
  await assertLedgerInvariants(t, db);
});
