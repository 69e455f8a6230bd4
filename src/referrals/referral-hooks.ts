// A referrer's share of a paid top-up, and its reversal on refund (docs/payments.md,
// "Referrals"). These run inside the transactions of src/payments/: the share is written with
// the top-up it comes from, its reversal with the refund that gives the top-up back, all or
// nothing. Only paid top-ups reach these hooks: redemption codes, tier bonuses, sign-up bonuses
// and the operator's credits never earn a referrer anything.
//
// - Paid: when the paying account was referred (referral-binding.ts) and the credit is written
//   before referred_at + referral.months (calendar months, UTC), the referrer gets
//   referral.percent of what the top-up credited (not of its tier bonus), rounded down to a
//   unit, as a `referral` row keyed referral:<provider>:<payment id> (once per payment).
// - Refunded: the share of what the refund gives back is taken back from the referrer as a
//   negative `referral` row keyed referral-reversal:<refund id>. Partial refunds are summed, so
//   refunding all of a top-up, in however many parts, takes back exactly what it earned. Never
//   more than the referrer's available money (balance − held): the balance never goes
//   negative. What could not be taken back is reported to the operator: an audit row
//   `referral.reversal_short` (GET /admin/v1/audit?action=referral.reversal_short, `gateway
//   audit ls --action referral.reversal_short`) and a warning in the log.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import type { Ledger } from '../billing/ledger.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import type { ReferralConfig } from '../config/load.js';
import { isPostgres } from '../db/dialect.js';
import type { Logger } from '../observability/logger.js';
import { referralReversalSource, referralSource } from '../payments/credit-sources.js';
import type { PaidPayment, PaymentHooks, RefundedPayment } from '../payments/payments.js';

/** Who the audit log names for the referral rows: the rule, not a person. */
export const referralActor = 'system:referrals';

/** `at` moved `months` calendar months later (UTC), the day kept or, past the target month's end, its last day. */
export function addMonths(at: number, months: number): number {
  const date = new Date(at);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date.getTime();
}

/** 1000n → "10", 250n → "2.5", 1n → "0.01": basis points as the config wrote the percentage. */
export function formatPercent(basisPoints: bigint): string {
  const whole = basisPoints / 100n;
  const fraction = (basisPoints % 100n).toString().padStart(2, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

/** The referrer's share of `units`: percent of it, rounded down to a unit. */
export const referralShareUnits = (units: bigint, basisPoints: bigint) => (units * basisPoints) / 10_000n;

/** `_db` is unused (the hooks work in the payment's transaction), kept for the wiring in services.ts. */
export function referralHooks(_db: Knex, ledger: Ledger, config: ReferralConfig | undefined, logger: Logger, now: () => number): PaymentHooks {
  // Reversals follow the ledger, not the config: turning referrals off stops the earning, and a
  // refund still takes back what its top-up earned while they were on.
  const onRefunded = (trx: Knex.Transaction, refunded: RefundedPayment) => reverseShare(trx, refunded, { ledger, logger, now });
  if (config === undefined) return { onRefunded };
  return { onPaid: (trx, paid) => creditShare(trx, paid, { ledger, config, now }), onRefunded };
}

async function creditShare(trx: Knex.Transaction, paid: PaidPayment, context: { ledger: Ledger; config: ReferralConfig; now: () => number }): Promise<void> {
  const { payment } = paid;
  const account: { referred_by: string | null; referred_at: string | number | null } | undefined = await trx('accounts').where({ id: payment.accountId }).first('referred_by', 'referred_at');
  if (!account || account.referred_by === null || account.referred_at === null) return;
  const at = context.now();
  if (at >= addMonths(Number(account.referred_at), context.config.months)) return;
  const shareUnits = referralShareUnits(paid.creditedUnits, context.config.basisPoints);
  if (shareUnits <= 0n) return;
  const percent = formatPercent(context.config.basisPoints);
  const credit = await context.ledger.credit(account.referred_by, shareUnits, 'referral', {
    within: trx,
    source: referralSource(payment.provider, paid.providerPaymentId),
    requestId: payment.id,
    // The referred account by its id only: its name is often its owner's email, which the referrer's history must not show.
    description: `referral income: ${percent}% of a top-up of account ${payment.accountId}`,
  });
  await writeAudit(
    trx,
    {
      actor: referralActor,
      action: 'referral.credit',
      target: account.referred_by,
      accountId: account.referred_by,
      details: {
        referred_account_id: payment.accountId,
        payment_id: payment.id,
        topup_rub: formatRub(paid.creditedUnits),
        percent,
        amount_rub: formatRub(shareUnits),
        transaction_id: `txn_${credit.transactionId}`,
      },
    },
    at,
  );
}

async function reverseShare(trx: Knex.Transaction, refunded: RefundedPayment, context: { ledger: Ledger; logger: Logger; now: () => number }): Promise<void> {
  const { payment } = refunded;
  if (payment.providerPaymentId === null || payment.creditedUnits === null || payment.creditedUnits <= 0n) return;
  // What the payment earned, and whom: its own credit row (the config may have changed since).
  const earned: { account_id: string; amount_units: string | number } | undefined = await trx('ledger_transactions')
    .where({ source: referralSource(payment.provider, payment.providerPaymentId) })
    .first('account_id', 'amount_units');
  if (!earned) return;
  const referrerId = earned.account_id;
  const earnedUnits = unitsFromSql(earned.amount_units);
  // The referrer's row locked before anything is read (PostgreSQL; SQLite has one writer): two
  // refunds of the referrer's referrals, and the referrer's own spending, wait for each other.
  const read = trx('accounts').where({ id: referrerId }).first('balance_units', 'held_units');
  const referrer: { balance_units: string | number; held_units: string | number } | undefined = await (isPostgres(trx) ? read.forUpdate() : read);
  if (!referrer) return;
  // Owed so far is earned × refunded ÷ credited (rounded down) over the payment's succeeded
  // refunds: each refund takes the difference its own share makes, so the parts add up exactly.
  const before: { total?: string | number | null } | undefined = await trx('payment_refunds')
    .where({ payment_id: payment.id, status: 'succeeded' })
    .whereNot({ id: refunded.refundId })
    .sum({ total: 'share_units' })
    .first();
  const refundedBefore = unitsFromSql(before?.total ?? 0);
  const owed = (refundedUnits: bigint) => {
    const capped = refundedUnits > payment.creditedUnits! ? payment.creditedUnits! : refundedUnits;
    return (earnedUnits * capped) / payment.creditedUnits!;
  };
  const dueUnits = owed(refundedBefore + refunded.refundedUnits) - owed(refundedBefore);
  if (dueUnits <= 0n) return;
  const availableUnits = unitsFromSql(referrer.balance_units) - unitsFromSql(referrer.held_units);
  const takenUnits = availableUnits <= 0n ? 0n : availableUnits < dueUnits ? availableUnits : dueUnits;
  const shortfallUnits = dueUnits - takenUnits;
  const at = context.now();
  const details = { referred_account_id: payment.accountId, payment_id: payment.id, refund_id: refunded.refundId, due_rub: formatRub(dueUnits), taken_rub: formatRub(takenUnits) };
  if (takenUnits > 0n) {
    const reversal = await context.ledger.credit(referrerId, -takenUnits, 'referral', {
      within: trx,
      source: referralReversalSource(refunded.refundId),
      requestId: payment.id,
      description: `referral income taken back: a top-up of account ${payment.accountId} was refunded`,
    });
    await writeAudit(trx, { actor: referralActor, action: 'referral.reversal', target: referrerId, accountId: referrerId, details: { ...details, transaction_id: `txn_${reversal.transactionId}` } }, at);
  }
  if (shortfallUnits > 0n) {
    await writeAudit(trx, { actor: referralActor, action: 'referral.reversal_short', target: referrerId, accountId: referrerId, details: { ...details, shortfall_rub: formatRub(shortfallUnits) } }, at);
    // Logged once the refund's transaction has committed: a rolled-back refund reports nothing.
    trx.executionPromise.then(
      () =>
        context.logger.warn(
          { referrer_account_id: referrerId, ...details, shortfall_rub: formatRub(shortfallUnits) },
          'a refunded top-up’s referral income could not be taken back whole: the referrer has spent it; the shortfall is in the audit log (referral.reversal_short)',
        ),
      () => undefined,
    );
  }
}
