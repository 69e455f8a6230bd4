// Refunding a payment to the customer's card (the console and the admin API; docs/payments.md,
// "Refunds"). The money leaves the balance before the provider is asked, in the transaction
// that records the refund, so it cannot be spent meanwhile; a refund the provider refuses
// gives it back. Each ledger row is keyed by the refund's id: written once, whatever retries.
//
// - Money already spent: the refund is refused (nothing written) unless the operator lets the
//   balance go to zero (`allowSpent`): then the provider refunds the whole amount and the
//   ledger takes back what is available, never more. The balance never goes negative.
// - A provider that cannot be reached (network, 5xx) leaves the refund pending; the sweeper
//   asks again with the same idempotence key, so the customer is refunded once.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import type { Ledger } from '../billing/ledger.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import { isPostgres } from '../db/dialect.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import { newId } from '../util/ids.js';
import { paymentRefundFailedSource, paymentRefundSource } from './credit-sources.js';
import { formatMinor } from './currency.js';
import { paymentFromRow, type Payment, type PaymentHooks, type Payments } from './payments.js';
import { ProviderRefusedError } from './provider.js';

export interface RefundRequest {
  readonly paymentId: string;
  /** What to give back to the card, in RUB of the payment's credit; default all not yet refunded. */
  readonly amountUnits?: bigint;
  /** Let the balance go to zero when part of the money is already spent. */
  readonly allowSpent: boolean;
  readonly actor: string;
  readonly reason: string | null;
}

export interface PaymentRefund {
  readonly id: string;
  readonly paymentId: string;
  readonly providerRefundId: string | null;
  readonly status: 'pending' | 'succeeded' | 'failed';
  readonly amountMinor: bigint;
  /** The share of the payment's credit refunded, in RUB. */
  readonly shareUnits: bigint;
  /** What the ledger took back: the share, or less when the operator let the balance reach zero. */
  readonly debitUnits: bigint;
  readonly createdAt: number;
}

export interface RefundRow {
  id: string;
  payment_id: string;
  provider_refund_id: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  amount_minor: string | number;
  share_units: string | number;
  debit_units: string | number;
  actor: string;
  reason: string | null;
  created_at: string | number;
  updated_at: string | number;
}

export const refundFromRow = (row: RefundRow): PaymentRefund => ({
  id: row.id,
  paymentId: row.payment_id,
  providerRefundId: row.provider_refund_id,
  status: row.status,
  amountMinor: BigInt(row.amount_minor),
  shareUnits: unitsFromSql(row.share_units),
  debitUnits: unitsFromSql(row.debit_units),
  createdAt: Number(row.created_at),
});

export class PaymentRefunds {
  constructor(
    private readonly db: Knex,
    private readonly ledger: Ledger,
    private readonly payments: Payments,
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly hooks: PaymentHooks = {},
  ) {}

  async listForPayment(paymentId: string): Promise<PaymentRefund[]> {
    return ((await this.db('payment_refunds').where({ payment_id: paymentId }).orderBy('id')) as RefundRow[]).map(refundFromRow);
  }

  /** Takes the money back and asks the provider to refund; the refund as it stands after. */
  async refund(request: RefundRequest): Promise<PaymentRefund> {
    const payment = await this.payments.find(request.paymentId);
    if (!payment) throw new GatewayError('not_found', `no payment ${request.paymentId}`);
    if (payment.status !== 'succeeded' || payment.creditedUnits === null || payment.providerPaymentId === null) {
      throw new GatewayError('payment_not_refundable', `payment ${payment.id} is ${payment.status}: only a succeeded payment can be refunded`);
    }
    const provider = this.payments.provider(payment.provider);
    const remainingUnits = payment.creditedUnits - payment.refundedUnits;
    const remainingMinor = payment.amountMinor - payment.refundedMinor;
    const units = request.amountUnits ?? remainingUnits;
    if (units <= 0n || units > remainingUnits || remainingMinor <= 0n) {
      throw new GatewayError('payment_not_refundable', `at most ${formatRub(remainingUnits)} RUB of payment ${payment.id} can still be refunded`);
    }
    // The card gets the payment's own currency back, in proportion (all of what remains for a whole refund).
    const amountMinor = units === remainingUnits ? remainingMinor : (units * payment.amountMinor) / payment.creditedUnits;
    if (amountMinor <= 0n) throw new GatewayError('payment_not_refundable', `${formatRub(units)} RUB is less than the smallest amount ${payment.provider} refunds`);
    const at = this.now();
    const refundId = newId('pref');
    await this.db.transaction(async (trx) => {
      // The account's row locked (PostgreSQL; SQLite has one writer) so the available money cannot change before the debit.
      // The debit's own condition (ledger.ts) still refuses to take more than is available.
      const read = trx('accounts').where({ id: payment.accountId }).first('balance_units', 'held_units');
      const account: { balance_units: string | number; held_units: string | number } = await (isPostgres(trx) ? read.forUpdate() : read);
      const availableUnits = unitsFromSql(account.balance_units) - unitsFromSql(account.held_units);
      let debitUnits = units;
      if (availableUnits < units) {
        if (!request.allowSpent) {
          throw new GatewayError(
            'refund_exceeds_available',
            `${formatRub(units)} RUB would be refunded but only ${formatRub(availableUnits > 0n ? availableUnits : 0n)} RUB of the account is unspent; nothing was refunded. Refund anyway to take the balance to zero.`,
          );
        }
        debitUnits = availableUnits > 0n ? availableUnits : 0n;
      }
      // The payment's refunded share first, conditionally: two refunds racing cannot give back more than was paid.
      const reserved = await trx('payments')
        .where({ id: payment.id, status: 'succeeded' })
        .andWhereRaw('refunded_minor + ? <= amount_minor', [amountMinor.toString()])
        .update({ refunded_minor: trx.raw('refunded_minor + ?', [amountMinor.toString()]), refunded_units: trx.raw('refunded_units + ?', [units.toString()]), updated_at: at });
      if (reserved === 0) throw new GatewayError('payment_not_refundable', `payment ${payment.id} was refunded meanwhile; nothing more was refunded`);
      await trx('payment_refunds').insert({ id: refundId, payment_id: payment.id, provider_refund_id: null, status: 'pending', amount_minor: amountMinor.toString(), share_units: units.toString(), debit_units: debitUnits.toString(), actor: request.actor, reason: request.reason, created_at: at, updated_at: at });
      let transactionId: string | null = null;
      if (debitUnits > 0n) {
        ({ transactionId } = await this.ledger.credit(payment.accountId, -debitUnits, 'refund', {
          within: trx,
          source: paymentRefundSource(refundId),
          requestId: payment.id,
          description: `refund of payment ${payment.providerPaymentId} to the customer${request.reason ? `: ${request.reason}` : ''}`.slice(0, 500),
        }));
      }
      await writeAudit(
        trx,
        {
          actor: request.actor,
          action: 'payment.refund',
          target: payment.id,
          accountId: payment.accountId,
          details: {
            refund_id: refundId,
            provider: payment.provider,
            amount: `${formatMinor(amountMinor, payment.currency)} ${payment.currency}`,
            debit_rub: formatRub(debitUnits),
            shortfall_rub: formatRub(units - debitUnits),
            reason: request.reason,
            transaction_id: transactionId && `txn_${transactionId}`,
          },
        },
        at,
      );
    });
    return this.askProvider(refundId, provider.name);
  }

  /** Asks the provider for the refund (again, with the same key, after a failure) and records its answer. */
  private async askProvider(refundId: string, providerName: string): Promise<PaymentRefund> {
    const refund = refundFromRow((await this.db('payment_refunds').where({ id: refundId }).first()) as RefundRow);
    const payment = (await this.payments.find(refund.paymentId))!;
    const provider = this.payments.provider(providerName);
    try {
      const answer = await provider.refund({ providerPaymentId: payment.providerPaymentId!, amountMinor: refund.amountMinor, currency: payment.currency, idempotenceKey: refund.id, email: payment.email });
      if (answer.status === 'failed') return await this.fail(refund, payment, `${provider.name} refused the refund`);
      await this.db('payment_refunds').where({ id: refund.id }).update({ provider_refund_id: answer.id, updated_at: this.now() });
      if (answer.status === 'succeeded') return await this.succeed(refund, payment);
      return (await this.find(refund.id))!;
    } catch (error) {
      if (error instanceof ProviderRefusedError) return this.fail(refund, payment, error.message);
      this.logger.warn({ err: error, refund_id: refund.id, payment_id: payment.id }, 'a refund could not be sent to its provider; the sweeper sends it again with the same key');
      await this.db('payment_refunds').where({ id: refund.id }).update({ updated_at: this.now() });
      return (await this.find(refund.id))!;
    }
  }

  async find(id: string): Promise<PaymentRefund | undefined> {
    const row: RefundRow | undefined = await this.db('payment_refunds').where({ id }).first();
    return row && refundFromRow(row);
  }

  /** The provider refunded: the refund is done, the payment wholly refunded when nothing of it is left, and the hooks take back what it earned. */
  private async succeed(refund: PaymentRefund, payment: Payment): Promise<PaymentRefund> {
    await this.db.transaction(async (trx) => {
      const done = await trx('payment_refunds').where({ id: refund.id, status: 'pending' }).update({ status: 'succeeded', updated_at: this.now() });
      if (done === 0) return;
      await trx('payments').where({ id: payment.id }).andWhereRaw('refunded_minor >= amount_minor').update({ status: 'refunded', updated_at: this.now() });
      const updated = paymentFromRow(await trx('payments').where({ id: payment.id }).first());
      await this.hooks.onRefunded?.(trx, { payment: updated, refundId: refund.id, refundedUnits: refund.shareUnits });
    });
    return (await this.find(refund.id))!;
  }

  /** The provider refused: the money goes back to the balance (keyed by the refund), the payment's refunded share is undone. */
  private async fail(refund: PaymentRefund, payment: Payment, why: string): Promise<PaymentRefund> {
    await this.db.transaction(async (trx) => {
      const failed = await trx('payment_refunds').where({ id: refund.id, status: 'pending' }).update({ status: 'failed', updated_at: this.now() });
      if (failed === 0) return;
      const units = refund.debitUnits;
      await trx('payments')
        .where({ id: payment.id })
        .update({ refunded_minor: trx.raw('refunded_minor - ?', [refund.amountMinor.toString()]), refunded_units: trx.raw('refunded_units - ?', [refund.shareUnits.toString()]), updated_at: this.now() });
      if (units > 0n) {
        await this.ledger.credit(payment.accountId, units, 'refund', { within: trx, source: paymentRefundFailedSource(refund.id), requestId: payment.id, description: `refund of payment ${payment.providerPaymentId} refused by ${payment.provider}: the money is back` });
      }
      await writeAudit(trx, { actor: `provider:${payment.provider}`, action: 'payment.refund_failed', target: payment.id, accountId: payment.accountId, details: { refund_id: refund.id, reason: why.slice(0, 300), returned_rub: formatRub(units) } }, this.now());
    });
    this.logger.warn({ refund_id: refund.id, payment_id: payment.id, reason: why }, 'a refund was refused by its provider; the money was returned to the balance');
    return (await this.find(refund.id))!;
  }

  /** The sweeper's round for refunds still pending: asked again with the same key. Never throws. */
  async sweep(olderThanMs: number, limit = 100): Promise<number> {
    const due: RefundRow[] = await this.db('payment_refunds').where({ status: 'pending' }).andWhere('updated_at', '<', this.now() - olderThanMs).orderBy('updated_at').limit(limit);
    for (const row of due) {
      const payment = await this.payments.find(row.payment_id);
      if (!payment || !this.payments.providers.has(payment.provider)) continue;
      await this.askProvider(row.id, payment.provider).catch((error: unknown) => this.logger.warn({ err: error, refund_id: row.id }, 'a pending refund could not be checked; tried again at the next sweep'));
    }
    return due.length;
  }
}
