// How a payment and its refunds look on the wire: the cabinet's shape (GET /cabinet/api/payments),
// and the operator's (the admin API and `gateway payments ls/show --json`), which is the
// cabinet's plus the account, the receipt's email and the refunds. One place, so the customer
// and the operator read the same fields with the same meaning.
import { formatRub } from '../util/money.js';
import { isoTime } from '../util/iso-time.js';
import { formatMinor } from './currency.js';
import type { PaymentRefund } from './payment-refunds.js';
import type { Payment, PaymentStatus } from './payments.js';

/** Every status a payment is shown in (the filters of the admin API and `gateway payments ls`). */
export const paymentStatuses = ['pending', 'succeeded', 'cancelled', 'refunded'] as const satisfies readonly PaymentStatus[];

export function presentPayment(payment: Payment) {
  return {
    id: payment.id,
    object: 'payment',
    provider: payment.provider,
    provider_payment_id: payment.providerPaymentId,
    status: payment.status,
    amount_rub: formatRub(payment.amountUnits),
    charged: { amount: formatMinor(payment.amountMinor, payment.currency), currency: payment.currency },
    rate: payment.rate,
    credited_rub: payment.creditedUnits === null ? null : formatRub(payment.creditedUnits),
    refunded_rub: formatRub(payment.refundedUnits),
    failure: payment.failure,
    created_at: isoTime(payment.createdAt),
    paid_at: isoTime(payment.paidAt),
  };
}

/** A refund as the operator reads it: what went back to the card (`amount`, in the payment's currency) and what the ledger took back (`debit_rub`). */
export function presentPaymentRefund(refund: PaymentRefund, currency: string) {
  return {
    id: refund.id,
    payment_id: refund.paymentId,
    status: refund.status,
    amount: { amount: formatMinor(refund.amountMinor, currency), currency },
    share_rub: formatRub(refund.shareUnits),
    debit_rub: formatRub(refund.debitUnits),
    created_at: isoTime(refund.createdAt),
  };
}

/** A payment as the operator reads it: the cabinet's fields, whose it is, and its refunds (oldest first). */
export function presentOperatorPayment(record: { payment: Payment; accountName: string; refunds: readonly PaymentRefund[] }) {
  const { payment } = record;
  return {
    ...presentPayment(payment),
    account_id: payment.accountId,
    account_name: record.accountName,
    email: payment.email,
    refunds: record.refunds.map((refund) => presentPaymentRefund(refund, payment.currency)),
  };
}
