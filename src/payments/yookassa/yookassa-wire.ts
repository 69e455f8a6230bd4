// YooKassa API v3 as it is on the wire (https://yookassa.ru/developers/api): the objects the
// adapter reads, checked with zod where they come in. Loose objects: YooKassa adds fields over
// time, and the adapter reads only what it needs. Pure: no HTTP, no gateway types.
import { z } from 'zod';

/** `{value: "500.00", currency: "RUB"}`: the value is a decimal string, never a number. */
export const wireAmount = z.looseObject({
  value: z.string(),
  currency: z.string().regex(/^[A-Z]{3}$/),
});
export type WireAmount = z.infer<typeof wireAmount>;

/** The payment's life: pending → (waiting_for_capture →) succeeded | canceled. */
export const wirePaymentStatuses = ['pending', 'waiting_for_capture', 'succeeded', 'canceled'] as const;

export const wirePayment = z.looseObject({
  id: z.string().min(1),
  status: z.enum(wirePaymentStatuses),
  amount: wireAmount,
  description: z.string().optional(),
  created_at: z.string(),
  confirmation: z.looseObject({ type: z.string(), confirmation_url: z.string().optional() }).optional(),
  refunded_amount: wireAmount.optional(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  /** Why a canceled payment was canceled: `party` (yoo_money, payment_network, merchant) and `reason` (expired_on_confirmation, insufficient_funds, …). */
  cancellation_details: z.looseObject({ party: z.string().optional(), reason: z.string().optional() }).optional(),
  /** Present when the payment carried a receipt (54-FZ): pending | succeeded | canceled. */
  receipt_registration: z.string().optional(),
});
export type WirePayment = z.infer<typeof wirePayment>;

export const wireRefund = z.looseObject({
  id: z.string().min(1),
  payment_id: z.string(),
  status: z.enum(['pending', 'succeeded', 'canceled']),
  amount: wireAmount,
  created_at: z.string(),
});
export type WireRefund = z.infer<typeof wireRefund>;

/** GET /payments: newest first, `next_cursor` while there is more. */
export const wirePaymentList = z.looseObject({
  type: z.literal('list'),
  items: z.array(wirePayment),
  next_cursor: z.string().optional(),
});

/** Every 4xx/5xx body. */
export const wireError = z.looseObject({
  type: z.literal('error'),
  id: z.string().optional(),
  code: z.string(),
  description: z.string().optional(),
  parameter: z.string().optional(),
});

/** The events a shop can be notified of (dashboard: Integration → HTTP notifications; the webhooks API). */
export const notificationEvents = ['payment.succeeded', 'payment.waiting_for_capture', 'payment.canceled', 'refund.succeeded'] as const;

/**
 * A notification: `{type: "notification", event, object}`, the object as it was when its status
 * changed. Not signed: only `object.id` is used, and only to know which payment to read back.
 */
export const wireNotification = z.looseObject({
  type: z.literal('notification'),
  event: z.string().min(1).max(100),
  object: z.looseObject({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a YooKassa object id') }),
});

/** A subscription of the webhooks API (POST /webhooks: the simulator's shop settings). */
export const wireWebhook = z.looseObject({ id: z.string(), event: z.string(), url: z.string() });

/** What POST /payments is sent (the fields the gateway uses). */
export interface WirePaymentRequest {
  readonly amount: WireAmount;
  readonly capture: true;
  readonly confirmation: { readonly type: 'redirect'; readonly return_url: string; readonly locale: 'ru_RU' | 'en_US' };
  readonly description: string;
  readonly metadata: { readonly payment_id: string };
  readonly receipt?: WireReceipt;
}

/** A 54-FZ receipt: who gets it and what was sold (here always one item, the balance top-up). */
export interface WireReceipt {
  readonly customer: { readonly email: string };
  readonly items: readonly {
    readonly description: string;
    readonly quantity: string;
    readonly amount: WireAmount;
    readonly vat_code: number;
    readonly payment_subject: 'service';
    readonly payment_mode: 'full_payment';
  }[];
}

/** What POST /refunds is sent. */
export interface WireRefundRequest {
  readonly payment_id: string;
  readonly amount: WireAmount;
  /** Only for a partial refund of a payment that had a receipt: a whole refund reuses the payment's. */
  readonly receipt?: WireReceipt;
}
