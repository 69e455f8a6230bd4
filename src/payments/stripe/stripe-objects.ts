// What Stripe's objects mean to the gateway (pure): a Checkout Session as a ProviderPayment,
// a Refund's state, the events that change a payment.
import type Stripe from 'stripe';
import type { ProviderPayment, ProviderRefund } from '../provider.js';

/** The events to enable at the endpoint: each is about a Checkout Session whose state may have changed. */
export const paymentEventTypes = ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed', 'checkout.session.expired'] as const;

const paymentEvents: ReadonlySet<string> = new Set(paymentEventTypes);

/** The Checkout Session an event is about, or null for an event that changes no payment. */
export function sessionIdOfEvent(event: { readonly type: string; readonly data?: { readonly object?: unknown } }): string | null {
  if (!paymentEvents.has(event.type)) return null;
  const object = event.data?.object as { object?: unknown; id?: unknown } | undefined;
  if (object?.object !== 'checkout.session' || typeof object.id !== 'string' || object.id === '') return null;
  return object.id;
}

/**
 * A session as the gateway sees its payment:
 * - complete and paid (or nothing to pay): succeeded;
 * - expired: cancelled; complete but its PaymentIntent failed afterwards (a delayed method
 *   such as a bank debit, checkout.session.async_payment_failed): cancelled too;
 * - anything else (open, complete with the money still on its way): pending.
 * What was refunded comes from the PaymentIntent's latest Charge, when it was expanded.
 */
export function paymentOfSession(session: Stripe.Checkout.Session): ProviderPayment {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  const charge = intent !== null && typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  let status: ProviderPayment['status'] = 'pending';
  let failure: string | undefined;
  if (session.status === 'complete' && (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')) status = 'succeeded';
  else if (session.status === 'expired') {
    status = 'cancelled';
    failure = 'the Checkout Session expired';
  } else if (session.status === 'complete' && intent !== null && (intent.status === 'canceled' || intent.status === 'requires_payment_method')) {
    status = 'cancelled';
    failure = intent.last_payment_error?.message ?? 'the payment failed';
  }
  return {
    id: session.id,
    status,
    amountMinor: BigInt(session.amount_total ?? 0),
    currency: (session.currency ?? '').toLowerCase(),
    reference: session.metadata?.payment_id ?? session.client_reference_id ?? null,
    refundedMinor: charge === null ? 0n : BigInt(charge.amount_refunded),
    createdAt: session.created * 1000,
    ...(failure === undefined ? {} : { failure }),
  };
}

/** A Refund's state: succeeded; pending (also requires_action: the customer has a step left); failed or canceled → failed. */
export function refundOf(refund: Pick<Stripe.Refund, 'id' | 'status'>): ProviderRefund {
  const status = refund.status === 'succeeded' ? 'succeeded' : refund.status === 'failed' || refund.status === 'canceled' ? 'failed' : 'pending';
  return { id: refund.id, status };
}
