// `gateway reconcile payments` (docs/payments.md, "Refunds and reconciliation"): what the ledger
// holds of customers' payments, set against what each provider reports of them. Pure: plain
// values in (read by reconcile-payments-read.ts), every difference out, so each rule is tested
// on its own.
//
// A payment is matched by the provider's payment id (our row's provider_payment_id, the topup
// row's source `payment:<provider>:<id>`), or by its reference (our pay_… id, in the payment's
// metadata) when our row never learned the provider's id. The differences:
// - not_credited: the provider says succeeded, no topup row here (a lost notification the
//   sweeper has not seen yet, or a payment cancelled here and paid there).
// - credited_not_paid: a topup row whose payment the provider reports pending or cancelled, or
//   does not know.
// - amount_differs: what the provider took, converted as the credit was (× the payment's rate,
//   rounded down once), is not what the topup row added.
// - refund_differs: what the provider refunded is not what our succeeded refunds sent back.
// - unknown_payment: a payment of the provider with no row here (not made by this gateway, or
//   made by another one on the same shop).
// - pending_but_final: our row is pending, the provider says cancelled (the sweeper closes it).
// - provider_unreadable: the provider's payments could not be read; nothing was compared.
import { formatRub } from '../util/money.js';
import { creditUnitsOf, formatMinor } from './currency.js';
import type { PaymentStatus } from './payments.js';
import type { ProviderPayment } from './provider.js';

export const differenceKinds = ['not_credited', 'credited_not_paid', 'amount_differs', 'refund_differs', 'unknown_payment', 'pending_but_final', 'provider_unreadable'] as const;
export type DifferenceKind = (typeof differenceKinds)[number];

/** Our payment row, as far as the comparison needs it. */
export interface LedgerPayment {
  readonly id: string;
  readonly accountId: string;
  readonly providerPaymentId: string | null;
  readonly status: PaymentStatus;
  readonly currency: string;
  /** RUB per unit of currency when the payment was made (null for rub). */
  readonly rate: string | null;
}

/** A `topup` row of a payment: its source names the provider's payment id. */
export interface LedgerCredit {
  readonly providerPaymentId: string;
  readonly accountId: string;
  readonly units: bigint;
  /** The payment it credited (the row's request id). */
  readonly paymentId: string | null;
}

/** A succeeded refund of one of our payments. */
export interface LedgerRefund {
  readonly paymentId: string;
  /** What went back to the card, in the payment's minor unit. */
  readonly amountMinor: bigint;
  /** The share of the credit it gave back. */
  readonly shareUnits: bigint;
}

export interface ProviderRecords {
  readonly provider: string;
  /** RUB per unit of the provider's currency as configured now ("1" for rub): for payments without a rate of their own. */
  readonly rubRate: string;
  /** The provider's payments: those it listed for the period and those fetched because the ledger names them. */
  readonly reported: readonly ProviderPayment[];
  /** Payment ids the ledger names that the provider said it does not know. */
  readonly unknownAtProvider: readonly string[];
}

export interface LedgerRecords {
  /** This provider's payment rows of the period, and every row a reported payment names. */
  readonly payments: readonly LedgerPayment[];
  readonly credits: readonly LedgerCredit[];
  readonly refunds: readonly LedgerRefund[];
}

export interface PaymentDifference {
  readonly kind: DifferenceKind;
  readonly provider: string;
  readonly providerPaymentId: string | null;
  /** Our payment (pay_…), when there is a row. */
  readonly paymentId: string | null;
  readonly accountId: string | null;
  /** What the ledger holds of it in RUB units (the topup row; for refund_differs, the refunds' share), null when nothing. */
  readonly ledgerUnits: bigint | null;
  /** What the provider reports (the payment's amount; for refund_differs, what it refunded). */
  readonly providerAmount: { readonly minor: bigint; readonly currency: string } | null;
  readonly detail: string;
}

const kindOrder = new Map(differenceKinds.map((kind, index) => [kind, index]));

export function comparePayments(provider: ProviderRecords, ledger: LedgerRecords): PaymentDifference[] {
  const name = provider.provider;
  const rowsByProviderId = new Map<string, LedgerPayment>();
  const rowsById = new Map<string, LedgerPayment>();
  for (const row of ledger.payments) {
    rowsById.set(row.id, row);
    if (row.providerPaymentId !== null) rowsByProviderId.set(row.providerPaymentId, row);
  }
  const credits = new Map(ledger.credits.map((credit) => [credit.providerPaymentId, credit]));
  const refunded = new Map<string, { minor: bigint; units: bigint }>();
  for (const refund of ledger.refunds) {
    const sum = refunded.get(refund.paymentId) ?? { minor: 0n, units: 0n };
    refunded.set(refund.paymentId, { minor: sum.minor + refund.amountMinor, units: sum.units + refund.shareUnits });
  }
  const differences: PaymentDifference[] = [];
  const seen = new Set<string>();
  const differ = (difference: Omit<PaymentDifference, 'provider'>) => differences.push({ provider: name, ...difference });

  for (const reported of provider.reported) {
    if (seen.has(reported.id)) continue; // listed and fetched: once
    seen.add(reported.id);
    const byReference = reported.reference === null ? undefined : rowsById.get(reported.reference);
    const row = rowsByProviderId.get(reported.id) ?? (byReference && byReference.providerPaymentId === null ? byReference : undefined);
    const credit = credits.get(reported.id);
    const amount = { minor: reported.amountMinor, currency: reported.currency };
    const ids = { providerPaymentId: reported.id, paymentId: row?.id ?? credit?.paymentId ?? null, accountId: row?.accountId ?? credit?.accountId ?? null };
    if (!row && !credit) {
      differ({ kind: 'unknown_payment', ...ids, ledgerUnits: null, providerAmount: amount, detail: `${name} reports a ${reported.status} payment${reported.reference ? ` with reference ${reported.reference}` : ''} that has no payment row here` });
      continue;
    }
    if (reported.status === 'succeeded') {
      if (!credit) {
        differ({ kind: 'not_credited', ...ids, ledgerUnits: null, providerAmount: amount, detail: `${name} says succeeded; no topup row here (our payment is ${row!.status})` });
      } else {
        const expected = creditUnitsOf(reported.amountMinor, reported.currency, row?.rate ?? provider.rubRate);
        if (expected !== credit.units || (row && row.currency !== reported.currency)) {
          differ({ kind: 'amount_differs', ...ids, ledgerUnits: credit.units, providerAmount: amount, detail: `${name} took what credits ${formatRub(expected)} RUB; the topup row added ${formatRub(credit.units)} RUB` });
        }
      }
    } else if (credit) {
      differ({ kind: 'credited_not_paid', ...ids, ledgerUnits: credit.units, providerAmount: amount, detail: `a topup row credited it, but ${name} says it is ${reported.status}` });
    } else if (row?.status === 'pending' && reported.status === 'cancelled') {
      differ({ kind: 'pending_but_final', ...ids, ledgerUnits: null, providerAmount: amount, detail: `pending here, cancelled at ${name}${reported.failure ? ` (${reported.failure})` : ''}` });
    }
    if (row) {
      const ours = refunded.get(row.id) ?? { minor: 0n, units: 0n };
      if (ours.minor !== reported.refundedMinor) {
        differ({
          kind: 'refund_differs',
          ...ids,
          ledgerUnits: ours.units,
          providerAmount: { minor: reported.refundedMinor, currency: reported.currency },
          detail: `${name} refunded ${formatMinor(reported.refundedMinor, reported.currency)} ${reported.currency}; our succeeded refunds sent back ${formatMinor(ours.minor, reported.currency)} ${reported.currency}`,
        });
      }
    }
  }

  // Credits of payments the provider reported nothing about: it said it does not know them.
  const unknown = new Set(provider.unknownAtProvider);
  for (const credit of ledger.credits) {
    if (seen.has(credit.providerPaymentId)) continue;
    seen.add(credit.providerPaymentId);
    const why = unknown.has(credit.providerPaymentId) ? `${name} does not know this payment` : `${name} reported nothing of this payment`;
    differ({ kind: 'credited_not_paid', providerPaymentId: credit.providerPaymentId, paymentId: credit.paymentId, accountId: credit.accountId, ledgerUnits: credit.units, providerAmount: null, detail: `a topup row credited it, but ${why}` });
  }

  return differences.sort(
    (a, b) => (a.providerPaymentId ?? '').localeCompare(b.providerPaymentId ?? '') || kindOrder.get(a.kind)! - kindOrder.get(b.kind)!,
  );
}

/** A provider whose payments could not be read: one difference saying so, so the run does not pass as clean. */
export function unreadableProvider(provider: string, why: string): PaymentDifference {
  return { kind: 'provider_unreadable', provider, providerPaymentId: null, paymentId: null, accountId: null, ledgerUnits: null, providerAmount: null, detail: `its payments could not be read: ${why}` };
}

/** A difference as `reconcile payments --json` prints it. */
export function presentDifference(difference: PaymentDifference) {
  return {
    kind: difference.kind,
    provider: difference.provider,
    provider_payment_id: difference.providerPaymentId,
    payment_id: difference.paymentId,
    account_id: difference.accountId,
    ledger_rub: difference.ledgerUnits === null ? null : formatRub(difference.ledgerUnits),
    provider_amount: difference.providerAmount === null ? null : { amount: formatMinor(difference.providerAmount.minor, difference.providerAmount.currency), currency: difference.providerAmount.currency },
    detail: difference.detail,
  };
}

/** One line of the readable report. */
export function describeDifference(difference: PaymentDifference): string {
  const shown = presentDifference(difference);
  const ids = [shown.provider_payment_id, shown.payment_id, shown.account_id].filter((id) => id !== null).join(' ');
  const amounts = [
    shown.ledger_rub === null ? 'ledger -' : `ledger ${shown.ledger_rub} RUB`,
    shown.provider_amount === null ? `${shown.provider} -` : `${shown.provider} ${shown.provider_amount.amount} ${shown.provider_amount.currency}`,
  ].join(', ');
  return `${shown.kind} ${shown.provider}${ids ? ` ${ids}` : ''} (${amounts}): ${shown.detail}`;
}
