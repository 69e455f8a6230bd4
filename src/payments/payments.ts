// Customers' payments (issue 32; docs/payments.md): the money rules once for every provider.
//
// - A payment row is written before the provider is asked, and its id is the provider's
//   idempotence key: a create whose answer was lost (a crash, a cut) is asked again by the
//   sweeper and gives the same payment, never a second one.
// - Nothing is credited from a notification's body. A notification only says which payment to
//   look at; `confirm` reads it from the provider's API and `apply` credits a `succeeded` one.
// - Crediting is one transaction: the payment's conditional flip to `succeeded` (the first
//   gate: a replay or a racing copy finds it flipped and writes nothing), the `topup` row keyed
//   `payment:<provider>:<id>` (the second gate: ledger_one_credit_per_source), the tier bonus,
//   what the hooks add (a referrer's share), and the audit row. All or nothing.
// - The sweeper asks the provider about payments still pending after payments.sweep_after
//   (a notification lost, or the process killed between the provider's success and the credit).
// - Refunds (payment-refunds.ts) take the money back first, then ask the provider.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import type { Ledger } from '../billing/ledger.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import type { PaymentsConfig } from '../config/load.js';
import { isUniqueViolation } from '../db/errors.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import { newId } from '../util/ids.js';
import { paymentBonusSource, paymentSource } from './credit-sources.js';
import { chargeMinorOf, creditUnitsOf } from './currency.js';
import { ProviderRefusedError, type PaymentProvider, type ProviderPayment } from './provider.js';
import { tierBonusUnits } from './top-up-bonus.js';

export type PaymentStatus = 'pending' | 'succeeded' | 'cancelled' | 'refunded';

export interface Payment {
  readonly id: string;
  readonly accountId: string;
  readonly userId: string | null;
  readonly provider: string;
  readonly providerPaymentId: string | null;
  readonly status: PaymentStatus;
  readonly amountUnits: bigint;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly rate: string | null;
  readonly creditedUnits: bigint | null;
  readonly refundedUnits: bigint;
  readonly refundedMinor: bigint;
  readonly confirmationUrl: string | null;
  readonly email: string | null;
  /** The customer's language when they paid: a create asked again (the sweeper) sends the same description. */
  readonly locale: 'ru' | 'en';
  readonly failure: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly paidAt: number | null;
}

/** A payment just credited, as the hooks see it (inside the crediting transaction). */
export interface PaidPayment {
  readonly payment: Payment;
  /** What its `topup` row added. */
  readonly creditedUnits: bigint;
  readonly providerPaymentId: string;
}

/** A refund the provider made, as the hooks see it (inside the transaction that records it). */
export interface RefundedPayment {
  readonly payment: Payment;
  readonly refundId: string;
  /** The share of the payment's credit this refund gives back (0 < x ≤ credited). */
  readonly refundedUnits: bigint;
}

/** More money rules run in the transactions that credit and refund payments (referrals: src/referrals/). */
export interface PaymentHooks {
  onPaid?(trx: Knex.Transaction, paid: PaidPayment): Promise<void>;
  onRefunded?(trx: Knex.Transaction, refunded: RefundedPayment): Promise<void>;
}

interface PaymentRow {
  id: string;
  account_id: string;
  user_id: string | null;
  provider: string;
  provider_payment_id: string | null;
  status: PaymentStatus;
  amount_units: string | number;
  currency: string;
  amount_minor: string | number;
  rate: string | null;
  credited_units: string | number | null;
  refunded_units: string | number;
  refunded_minor: string | number;
  confirmation_url: string | null;
  email: string | null;
  locale: string;
  failure: string | null;
  created_at: string | number;
  updated_at: string | number;
  paid_at: string | number | null;
}

export function paymentFromRow(row: PaymentRow): Payment {
  return {
    id: row.id,
    accountId: row.account_id,
    userId: row.user_id,
    provider: row.provider,
    providerPaymentId: row.provider_payment_id,
    status: row.status,
    amountUnits: unitsFromSql(row.amount_units),
    currency: row.currency,
    amountMinor: BigInt(row.amount_minor),
    rate: row.rate,
    creditedUnits: row.credited_units === null ? null : unitsFromSql(row.credited_units),
    refundedUnits: unitsFromSql(row.refunded_units),
    refundedMinor: BigInt(row.refunded_minor),
    confirmationUrl: row.confirmation_url,
    email: row.email,
    locale: row.locale === 'ru' ? 'ru' : 'en',
    failure: row.failure,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    paidAt: row.paid_at === null ? null : Number(row.paid_at),
  };
}

/** Who pays: the account, the user in the cabinet (their email for the receipt), their language. */
export interface Payer {
  readonly accountId: string;
  readonly userId: string | null;
  readonly email: string | null;
  readonly locale: 'ru' | 'en';
}

const description = { ru: 'Пополнение баланса', en: 'Balance top-up' } as const;

export class Payments {
  /** Where the browser comes back (cabinet.public_url, else the address this process serves on; set at start). */
  private returnOrigin: string;

  constructor(
    private readonly db: Knex,
    private readonly ledger: Ledger,
    readonly config: PaymentsConfig,
    readonly providers: ReadonlyMap<string, PaymentProvider>,
    private readonly logger: Logger,
    private readonly now: () => number,
    options: { publicUrl: string; publicUrlConfigured: boolean },
    private readonly hooks: PaymentHooks = {},
  ) {
    this.returnOrigin = options.publicUrl;
    this.publicUrlConfigured = options.publicUrlConfigured;
  }

  private readonly publicUrlConfigured: boolean;

  /** Once the process serves: the return address (unless cabinet.public_url says otherwise) and the simulator's notification URL. */
  async start(servedUrl: string): Promise<void> {
    if (!this.publicUrlConfigured) this.returnOrigin = servedUrl;
    for (const provider of this.providers.values()) await provider.start?.(`${servedUrl}/payments/${provider.name}/notifications`);
  }

  provider(name: string): PaymentProvider {
    const provider = this.providers.get(name);
    if (!provider) {
      throw new GatewayError('validation_error', `provider must be one of: ${[...this.providers.keys()].join(', ') || '(none configured)'}`, {
        param: 'provider',
        detail: [{ loc: ['body', 'provider'], msg: `Input should be ${[...this.providers.keys()].map((name) => `'${name}'`).join(' or ')}`, type: 'enum', input: name }],
      });
    }
    return provider;
  }

  /**
   * Starts a top-up of `amountUnits` RUB: the row first (its id the idempotence key), then the
   * provider. Answers the payment with the page the browser goes to. A provider that cannot be
   * reached leaves the row pending without an id; the sweeper asks again (same key) or it stays
   * pending until it is cancelled there.
   */
  async create(payer: Payer, providerName: string, amountUnits: bigint): Promise<Payment> {
    const provider = this.provider(providerName);
    const { minUnits, maxUnits } = this.config;
    if (amountUnits < minUnits || amountUnits > maxUnits) {
      const message = `amount_rub must be between ${formatRub(minUnits)} and ${formatRub(maxUnits)}`;
      throw new GatewayError('validation_error', message, { param: 'amount_rub', detail: [{ loc: ['body', 'amount_rub'], msg: message, type: 'value_error', input: formatRub(amountUnits) }] });
    }
    if (provider.currency === 'rub' && amountUnits % 100n !== 0n) {
      const message = 'amount_rub must be in whole kopecks (at most 2 decimals)';
      throw new GatewayError('validation_error', message, { param: 'amount_rub', detail: [{ loc: ['body', 'amount_rub'], msg: message, type: 'value_error', input: formatRub(amountUnits) }] });
    }
    const at = this.now();
    const id = newId('pay');
    const amountMinor = chargeMinorOf(amountUnits, provider.currency, provider.rubRate);
    await this.db('payments').insert({
      id,
      account_id: payer.accountId,
      user_id: payer.userId,
      provider: provider.name,
      provider_payment_id: null,
      status: 'pending',
      amount_units: amountUnits.toString(),
      currency: provider.currency,
      amount_minor: amountMinor.toString(),
      rate: provider.currency === 'rub' ? null : provider.rubRate,
      email: payer.email,
      locale: payer.locale,
      created_at: at,
      updated_at: at,
    });
    const row = (await this.find(id))!;
    try {
      return await this.askProvider(row);
    } catch (error) {
      if (error instanceof ProviderRefusedError) {
        await this.refused(row, error);
        throw new GatewayError('upstream_error', `${provider.name} refused to start the payment (${error.message}); nothing was charged`, { retryable: false });
      }
      this.logger.warn({ err: error, payment_id: id, provider: provider.name }, 'a payment could not be created at its provider; the sweeper asks again');
      throw new GatewayError('upstream_error', `${provider.name} could not be reached to start the payment; try again in a minute`, { retryable: true });
    }
  }

  /** Creates the payment at its provider (again, with the same key, when the first answer was lost) and keeps its id and page. */
  private async askProvider(payment: Payment): Promise<Payment> {
    const { locale } = payment;
    const provider = this.provider(payment.provider);
    const { payment: created, confirmationUrl } = await provider.create({
      reference: payment.id,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      description: description[locale],
      email: payment.email,
      returnUrl: `${this.returnOrigin}/cabinet/topup?payment=${payment.id}`,
      cancelUrl: `${this.returnOrigin}/cabinet/topup?payment=${payment.id}`,
      locale,
    });
    await this.db('payments').where({ id: payment.id }).whereNull('provider_payment_id').update({ provider_payment_id: created.id, confirmation_url: confirmationUrl, updated_at: this.now() });
    return this.apply(provider.name, created);
  }

  async find(id: string): Promise<Payment | undefined> {
    const row: PaymentRow | undefined = await this.db('payments').where({ id }).first();
    return row && paymentFromRow(row);
  }

  /** An account's payments, newest first. */
  async listForAccount(accountId: string, options: { limit?: number; before?: string } = {}): Promise<Payment[]> {
    const query = this.db('payments').where({ account_id: accountId }).orderBy('id', 'desc').limit(options.limit ?? 50);
    if (options.before) query.andWhere('id', '<', options.before);
    return ((await query) as PaymentRow[]).map(paymentFromRow);
  }

  /** Every payment (the console's and the admin API's list), newest first. */
  async list(options: { limit?: number; before?: string; status?: PaymentStatus; accountId?: string } = {}): Promise<Payment[]> {
    const query = this.db('payments').orderBy('id', 'desc').limit(options.limit ?? 50);
    if (options.before) query.andWhere('id', '<', options.before);
    if (options.status) query.andWhere({ status: options.status });
    if (options.accountId) query.andWhere({ account_id: options.accountId });
    return ((await query) as PaymentRow[]).map(paymentFromRow);
  }

  /** A notification or a customer's return: reads the payment from the provider and applies what it says. */
  async confirm(providerName: string, providerPaymentId: string): Promise<Payment | undefined> {
    const provider = this.provider(providerName);
    return this.apply(provider.name, await provider.fetch(providerPaymentId));
  }

  /** Refreshes one of our payments from its provider (the page the customer returns to asks this). */
  async refresh(payment: Payment): Promise<Payment> {
    if (payment.status !== 'pending') return payment;
    if (payment.providerPaymentId === null) return payment;
    return (await this.confirm(payment.provider, payment.providerPaymentId)) ?? payment;
  }

  /**
   * What the provider says of a payment, applied once: succeeded → credited; cancelled →
   * cancelled. A payment that is not ours (no row for its reference) is logged and left alone.
   */
  async apply(providerName: string, reported: ProviderPayment): Promise<Payment> {
    const row: PaymentRow | undefined = await this.db('payments').where({ provider: providerName, provider_payment_id: reported.id }).first();
    let payment = row && paymentFromRow(row);
    if (!payment && reported.reference) {
      // The create's answer was lost before its id was kept: the reference names our row.
      const byReference = await this.find(reported.reference);
      if (byReference && byReference.provider === providerName && byReference.providerPaymentId === null) {
        await this.db('payments').where({ id: byReference.id }).whereNull('provider_payment_id').update({ provider_payment_id: reported.id, updated_at: this.now() });
        payment = (await this.find(byReference.id))!;
      }
    }
    if (!payment) {
      this.logger.warn({ provider: providerName, provider_payment_id: reported.id, reference: reported.reference }, 'a payment the provider reported is not one of this gateway’s; nothing was credited');
      throw new GatewayError('not_found', `no payment ${reported.id} of ${providerName} here`);
    }
    if (reported.status === 'succeeded') return this.credit(payment, reported);
    if (reported.status === 'cancelled' && payment.status === 'pending') {
      await this.db('payments').where({ id: payment.id, status: 'pending' }).update({ status: 'cancelled', failure: reported.failure?.slice(0, 500) ?? null, updated_at: this.now() });
      return (await this.find(payment.id))!;
    }
    await this.db('payments').where({ id: payment.id }).update({ updated_at: this.now() }); // asked now: the sweeper waits sweep_after again
    return payment;
  }

  /** Credits a succeeded payment once (see the top of this file). */
  private async credit(payment: Payment, reported: ProviderPayment): Promise<Payment> {
    if (payment.status === 'succeeded' || payment.status === 'refunded') return payment;
    if (reported.currency !== payment.currency) {
      this.logger.error({ payment_id: payment.id, provider_currency: reported.currency, currency: payment.currency }, 'a payment was reported in another currency than it was made in; nothing was credited');
      return payment;
    }
    if (reported.amountMinor !== payment.amountMinor) {
      this.logger.warn({ payment_id: payment.id, reported_minor: reported.amountMinor.toString(), amount_minor: payment.amountMinor.toString() }, 'the provider reports another amount than was asked; what it took is credited');
    }
    const provider = this.provider(payment.provider);
    const creditedUnits = creditUnitsOf(reported.amountMinor, reported.currency, payment.rate ?? provider.rubRate);
    const at = this.now();
    try {
      await this.db.transaction(async (trx) => {
        const flipped = await trx('payments')
          .where({ id: payment.id })
          .whereIn('status', ['pending', 'cancelled'])
          .update({ status: 'succeeded', credited_units: creditedUnits.toString(), paid_at: at, updated_at: at, failure: null });
        if (flipped === 0) return; // credited by a racing copy
        const providerName = provider.name === 'yookassa' ? 'YooKassa' : provider.name === 'stripe' ? 'Stripe' : provider.name;
        const rateNote = payment.rate === null ? '' : ` (${reported.amountMinor} ${reported.currency} minor units at ${payment.rate} RUB)`;
        const topup = await this.ledger.credit(payment.accountId, creditedUnits, 'topup', {
          within: trx,
          source: paymentSource(provider.name, reported.id),
          requestId: payment.id,
          description: `${providerName} payment ${reported.id}${rateNote}`.slice(0, 500),
        });
        const actor = `provider:${provider.name}`;
        await writeAudit(
          trx,
          {
            actor,
            action: 'payment.succeeded',
            target: payment.id,
            accountId: payment.accountId,
            details: { provider: provider.name, provider_payment_id: reported.id, amount_rub: formatRub(creditedUnits), transaction_id: `txn_${topup.transactionId}`, balance_rub: formatRub(topup.balanceUnits) },
          },
          at,
        );
        const bonusUnits = tierBonusUnits(creditedUnits, this.config.bonusTiers);
        if (bonusUnits > 0n) {
          const bonus = await this.ledger.credit(payment.accountId, bonusUnits, 'bonus', {
            within: trx,
            source: paymentBonusSource(provider.name, reported.id),
            requestId: payment.id,
            description: `top-up bonus for ${providerName} payment ${reported.id}`.slice(0, 500),
          });
          await writeAudit(trx, { actor, action: 'balance.topup', target: payment.accountId, accountId: payment.accountId, details: { kind: 'bonus', source: 'payment_tier', payment_id: payment.id, amount_rub: formatRub(bonusUnits), transaction_id: `txn_${bonus.transactionId}` } }, at);
        }
        const updated = paymentFromRow((await trx('payments').where({ id: payment.id }).first()) as PaymentRow);
        await this.hooks.onPaid?.(trx, { payment: updated, creditedUnits, providerPaymentId: reported.id });
      });
    } catch (error) {
      // The other gate: a copy that raced past the status check finds the source taken and rolls back whole.
      if (!isUniqueViolation(error)) throw error;
    }
    return (await this.find(payment.id))!;
  }

  /** The provider refused to create the payment (a 4xx: definite): it is cancelled, not asked again every sweep. */
  private async refused(payment: Payment, error: ProviderRefusedError): Promise<void> {
    this.logger.warn({ payment_id: payment.id, provider: payment.provider, reason: error.message }, 'the provider refused to create a payment; it is cancelled');
    await this.db('payments').where({ id: payment.id, status: 'pending' }).whereNull('provider_payment_id').update({ status: 'cancelled', failure: error.message.slice(0, 500), updated_at: this.now() });
  }

  /**
   * The sweeper's round: payments still pending sweep_after after they were last looked at are
   * asked of their provider (a create whose answer was lost is made again with its key). Never
   * throws; returns how many were looked at.
   */
  async sweep(limit = 100): Promise<number> {
    const due: PaymentRow[] = await this.db('payments')
      .where({ status: 'pending' })
      .andWhere('updated_at', '<', this.now() - this.config.sweepAfterMs)
      .orderBy('updated_at')
      .limit(limit);
    let looked = 0;
    for (const row of due) {
      const payment = paymentFromRow(row);
      if (!this.providers.has(payment.provider)) continue; // a provider no longer configured: left for the operator
      try {
        looked++;
        if (payment.providerPaymentId === null) await this.askProvider(payment);
        else await this.confirm(payment.provider, payment.providerPaymentId);
      } catch (error) {
        if (error instanceof ProviderRefusedError && payment.providerPaymentId === null) {
          await this.refused(payment, error).catch(() => undefined);
          continue;
        }
        this.logger.warn({ err: error, payment_id: payment.id, provider: payment.provider }, 'a pending payment could not be checked with its provider; tried again at the next sweep');
        await this.db('payments').where({ id: payment.id }).update({ updated_at: this.now() }).catch(() => undefined);
      }
    }
    return looked;
  }

  async close(): Promise<void> {
    await Promise.all([...this.providers.values()].map((provider) => provider.close().catch(() => undefined)));
  }
}
