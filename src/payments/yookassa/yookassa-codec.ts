// Between the gateway's payments and YooKassa's wire (yookassa-wire.ts), pure and exact:
// amounts are decimal strings there and kopecks (bigint) here, never a float in between;
// statuses map onto the three the gateway knows; a notification is read only for the id of
// the object it is about.
import { NotificationRefusedError, type NewProviderPayment, type ProviderPayment, type ProviderRefund } from '../provider.js';
import { wireNotification, type WireAmount, type WirePayment, type WirePaymentRequest, type WireReceipt, type WireRefund, type WireRefundRequest } from './yookassa-wire.js';

/** YooKassa's amounts have two decimals ("500.00"); it may drop trailing zeros ("500", "500.5"). */
const amountPattern = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** "500.00" → 50000n (kopecks, cents). Throws on anything else: a malformed amount is never guessed at. */
export function minorOfValue(value: string): bigint {
  const match = amountPattern.exec(value);
  if (!match) throw new Error(`YooKassa sent an amount that is not a decimal with at most 2 decimals: ${JSON.stringify(value)}`);
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

/** 50000n → "500.00". */
export function valueOfMinor(minor: bigint): string {
  if (minor < 0n) throw new Error(`a YooKassa amount is never negative: ${minor}`);
  return `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;
}

/** 50000n, "rub" → {value: "500.00", currency: "RUB"}. */
export function wireAmountOf(minor: bigint, currency: string): WireAmount {
  return { value: valueOfMinor(minor), currency: currency.toUpperCase() };
}

/** waiting_for_capture is money held, not taken (the gateway always asks capture: true): still pending. */
export function statusOf(status: WirePayment['status']): ProviderPayment['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'canceled') return 'cancelled';
  return 'pending';
}

export function refundStatusOf(status: WireRefund['status']): ProviderRefund['status'] {
  return status === 'canceled' ? 'failed' : status;
}

/** ISO 8601 → ms; a date YooKassa wrote wrong is an error, not the epoch. */
function timeOf(iso: string): number {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) throw new Error(`YooKassa sent a date that is not ISO 8601: ${JSON.stringify(iso)}`);
  return at;
}

export function providerPaymentOf(payment: WirePayment): ProviderPayment {
  const reference = payment.metadata?.payment_id;
  const failure = payment.cancellation_details && [payment.cancellation_details.party, payment.cancellation_details.reason].filter(Boolean).join(': ');
  return {
    id: payment.id,
    status: statusOf(payment.status),
    amountMinor: minorOfValue(payment.amount.value),
    currency: payment.amount.currency.toLowerCase(),
    reference: typeof reference === 'string' ? reference : null,
    refundedMinor: payment.refunded_amount ? minorOfValue(payment.refunded_amount.value) : 0n,
    createdAt: timeOf(payment.created_at),
    ...(payment.status === 'canceled' ? { failure: failure || 'canceled' } : {}),
  };
}

export function providerRefundOf(refund: WireRefund): ProviderRefund {
  return { id: refund.id, status: refundStatusOf(refund.status) };
}

/** YooKassa's limits on the payment's description and a receipt item's. */
const maxDescription = 128;

/** The receipt's one item: the balance top-up, the whole amount, a service paid in full now. */
function receiptOf(email: string, description: string, amount: WireAmount, vatCode: number): WireReceipt {
  return {
    customer: { email },
    items: [{ description: description.slice(0, maxDescription), quantity: '1.00', amount, vat_code: vatCode, payment_subject: 'service', payment_mode: 'full_payment' }],
  };
}

/**
 * POST /payments: one stage (capture: true), the browser sent to YooKassa's page and back, our
 * payment id in the metadata. The 54-FZ receipt needs the customer's email: without one it is
 * left out (a shop that sends receipts through YooKassa then refuses the payment; docs/payments.md).
 */
export function paymentRequestOf(payment: NewProviderPayment, vatCode: number): WirePaymentRequest {
  const amount = wireAmountOf(payment.amountMinor, payment.currency);
  return {
    amount,
    capture: true,
    confirmation: { type: 'redirect', return_url: payment.returnUrl, locale: payment.locale === 'ru' ? 'ru_RU' : 'en_US' },
    description: payment.description.slice(0, maxDescription),
    metadata: { payment_id: payment.reference },
    ...(payment.email ? { receipt: receiptOf(payment.email, payment.description, amount, vatCode) } : {}),
  };
}

/**
 * POST /refunds. A whole refund needs no receipt (YooKassa reuses the payment's); a partial one
 * of a payment that had a receipt needs the refund receipt's item, which only the gateway knows
 * how to describe: `receipt` is given then.
 */
export function refundRequestOf(
  providerPaymentId: string,
  amountMinor: bigint,
  currency: string,
  receipt?: { readonly email: string; readonly description: string; readonly vatCode: number },
): WireRefundRequest {
  const amount = wireAmountOf(amountMinor, currency);
  return { payment_id: providerPaymentId, amount, ...(receipt ? { receipt: receiptOf(receipt.email, receipt.description, amount, receipt.vatCode) } : {}) };
}

/** The payment events whose object is a payment to read back; anything else changes no payment here. */
const paymentEvents = new Set(['payment.succeeded', 'payment.waiting_for_capture', 'payment.canceled']);

/**
 * Which payment a notification is about, or null for an event that is not a payment's (a
 * refund's: refunds are asked of the API by the gateway). A body that is not a YooKassa
 * notification is refused. Nothing else of the body is believed: it is not signed.
 */
export function notifiedPaymentId(rawBody: Buffer): string | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new NotificationRefusedError('the notification is not JSON');
  }
  const parsed = wireNotification.safeParse(body);
  if (!parsed.success) throw new NotificationRefusedError('the notification is not a YooKassa notification ({type: "notification", event, object: {id}})');
  return paymentEvents.has(parsed.data.event) ? parsed.data.object.id : null;
}
