// What the referral tests share: a gateway with `referral` and `payments` configured, and the
// money path of src/payments/ driven the way a provider's answers drive it.
//
// The provider adapters and their simulators are built elsewhere, so no payment is made over a
// provider's wire here. What a provider reported is handed to the real Payments.apply (a
// ProviderPayment value, as an adapter's fetch returns it), which credits in its own
// transaction and calls the real referral hooks; a refund's success is recorded the way
// PaymentRefunds records it (the refund row, the customer's debit and the hook, in one
// transaction). The provider object only names the provider: nothing in these paths calls it.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import type { Logger } from 'pino';
import { parse } from 'yaml';
import { paymentRefundSource } from '../../src/payments/credit-sources.js';
import { paymentFromRow, Payments, type Payment, type PaymentHooks } from '../../src/payments/payments.js';
import type { PaymentProvider } from '../../src/payments/provider.js';
import { referralHooks } from '../../src/referrals/referral-hooks.js';
import { newId } from '../../src/util/ids.js';
import type { TestDatabase } from '../helpers/backends.js';
import type { TestClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';

export const publicUrl = 'https://gateway.example.com';

/** The example config with referrals, tier bonuses and the cabinet's public address; `extra` sections replace its own. */
export function referralConfig(extra: Record<string, unknown> = {}): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return {
    ...raw,
    cabinet: { ...raw.cabinet, public_url: publicUrl },
    payments: { bonus_tiers: [{ from: '5000', percent: '10' }] },
    referral: { percent: '7.5', months: 12 },
    ...extra,
  };
}

/** A provider that only names itself: Payments.apply reads its name, currency and rate, and calls nothing. */
function namedProvider(name: string): PaymentProvider {
  const unused = () => Promise.reject(new Error(`${name} is not called by this test`));
  return {
    name,
    currency: 'rub',
    rubRate: '1',
    create: unused,
    fetch: unused,
    refund: unused,
    list: () => ({ [Symbol.asyncIterator]: () => ({ next: unused }) }),
    readNotification: unused,
    close: () => Promise.resolve(),
  };
}

export interface ReferralMoney {
  readonly gateway: TestGateway;
  readonly payments: Payments;
  readonly hooks: PaymentHooks;
  /** A payment of `amountUnits` RUB that the provider reports succeeded: the row as create leaves it, then apply. */
  paid(accountId: string, amountUnits: bigint): Promise<Payment>;
  /** The provider refunded `shareUnits` RUB of the payment: recorded as PaymentRefunds records a success (with `hooks`, default the gateway's). The refund's id. */
  refunded(payment: Payment, shareUnits: bigint, hooks?: PaymentHooks): Promise<string>;
}

let providerIds = 0;

export async function referralMoney(
  t: ExecutionContext,
  database: TestDatabase,
  options: { clock: TestClock; raw?: Record<string, unknown>; env?: Record<string, string>; logger?: Logger },
): Promise<ReferralMoney> {
  const gateway = await startGateway(t, database, { raw: options.raw ?? referralConfig(), env: options.env, now: options.clock.now, logger: options.logger });
  const { db, ledger, logger, config } = gateway.services;
  const hooks = referralHooks(db, ledger, config.referral, logger, options.clock.now);
  const payments = new Payments(db, ledger, config.payments!, new Map([['yookassa', namedProvider('yookassa')]]), logger, options.clock.now, { publicUrl, publicUrlConfigured: true }, hooks);
  return {
    gateway,
    payments,
    hooks,
    async paid(accountId, amountUnits) {
      const id = newId('pay');
      const providerPaymentId = `2f${String(providerIds++).padStart(6, '0')}-000f-5000-9000-1b68e7b15f3f`;
      const at = options.clock.now();
      await db('payments').insert({
        id,
        account_id: accountId,
        user_id: null,
        provider: 'yookassa',
        provider_payment_id: providerPaymentId,
        status: 'pending',
        amount_units: amountUnits.toString(),
        currency: 'rub',
        amount_minor: (amountUnits / 100n).toString(),
        rate: null,
        email: null,
        created_at: at,
        updated_at: at,
      });
      return payments.apply('yookassa', { id: providerPaymentId, status: 'succeeded', amountMinor: amountUnits / 100n, currency: 'rub', reference: id, refundedMinor: 0n, createdAt: at });
    },
    async refunded(payment, shareUnits, refundHooks = hooks) {
      const refundId = newId('pref');
      const at = options.clock.now();
      await db.transaction(async (trx) => {
        const amountMinor = shareUnits / 100n;
        await trx('payments')
          .where({ id: payment.id })
          .update({ refunded_minor: trx.raw('refunded_minor + ?', [amountMinor.toString()]), refunded_units: trx.raw('refunded_units + ?', [shareUnits.toString()]), updated_at: at });
        await trx('payment_refunds').insert({ id: refundId, payment_id: payment.id, provider_refund_id: `r-${refundId}`, status: 'succeeded', amount_minor: amountMinor.toString(), share_units: shareUnits.toString(), debit_units: shareUnits.toString(), actor: 'test', reason: null, created_at: at, updated_at: at });
        await ledger.credit(payment.accountId, -shareUnits, 'refund', { within: trx, source: paymentRefundSource(refundId), requestId: payment.id, description: 'refund to the customer' });
        await trx('payments').where({ id: payment.id }).andWhereRaw('refunded_minor >= amount_minor').update({ status: 'refunded' });
        const updated = paymentFromRow(await trx('payments').where({ id: payment.id }).first());
        await refundHooks.onRefunded!(trx, { payment: updated, refundId, refundedUnits: shareUnits });
      });
      return refundId;
    },
  };
}

/** The account's ledger rows of `kind`, oldest first: [amount, source, description]. */
export async function rowsOf(gateway: TestGateway, accountId: string, kind: string): Promise<[bigint, string | null, string | null][]> {
  const rows: { amount_units: string | number; source: string | null; description: string | null }[] = await gateway.services
    .db('ledger_transactions')
    .where({ account_id: accountId, kind })
    .orderBy('id')
    .select('amount_units', 'source', 'description');
  return rows.map((row) => [BigInt(row.amount_units), row.source, row.description]);
}
