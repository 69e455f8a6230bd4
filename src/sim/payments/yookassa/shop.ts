// The simulated YooKassa shop: its payments, refunds and webhook subscriptions, and the rules
// YooKassa applies to them (docs/payments.md, "Simulator"). No HTTP here (yookassa.ts routes,
// checkout-page.ts renders, notifier.ts delivers): each operation checks its input as the API
// does, changes the state and says which events to notify. State lives in the instance.
//
// Written apart from the gateway's adapter (src/payments/yookassa/): its own amount parsing and
// schemas, so a mistake in the adapter's wire is caught here rather than mirrored.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** A refusal in YooKassa's error shape: `{type: "error", id, code, description, parameter}`. */
export class YookassaSimError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly parameter?: string,
  ) {
    super(description);
  }

  body(): Record<string, string> {
    return { type: 'error', id: randomUUID(), code: this.code, description: this.description, ...(this.parameter ? { parameter: this.parameter } : {}) };
  }
}

export const invalidRequest = (description: string, parameter?: string) => new YookassaSimError(400, 'invalid_request', description, parameter);

export type SimPaymentStatus = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';

/** Fault switches of a payment's notifications: `none` (lost: the sweeper's and crash tests), `twice` (each sent twice at once). */
export type NotifyMode = 'normal' | 'none' | 'twice';
export const notifyModes: readonly NotifyMode[] = ['normal', 'none', 'twice'];

export interface SimPayment {
  readonly id: string;
  /** Creation order: the list's order and its cursor. */
  readonly seq: number;
  status: SimPaymentStatus;
  readonly amountKopecks: bigint;
  readonly currency: string;
  readonly description: string | undefined;
  readonly capture: boolean;
  readonly returnUrl: string;
  readonly locale: 'ru_RU' | 'en_US';
  readonly metadata: Readonly<Record<string, string>> | undefined;
  /** A receipt came with the payment (54-FZ): its registration follows the payment. */
  readonly receipt: boolean;
  readonly createdAt: number;
  capturedAt: number | undefined;
  refundedKopecks: bigint;
  cancellation: { party: string; reason: string } | undefined;
}

export interface SimRefund {
  readonly id: string;
  readonly paymentId: string;
  readonly amountKopecks: bigint;
  readonly currency: string;
  readonly receipt: boolean;
  readonly createdAt: number;
  readonly status: 'succeeded';
}

export interface SimWebhook {
  readonly id: string;
  readonly event: string;
  readonly url: string;
}

/** An event to send to the subscribed URLs. */
export interface SimEvent {
  readonly event: string;
  readonly object: Record<string, unknown>;
  readonly notify: NotifyMode;
}

export const webhookEvents = ['payment.succeeded', 'payment.waiting_for_capture', 'payment.canceled', 'refund.succeeded'] as const;

/** "500.00" (YooKassa takes at most 2 decimals) → 50000n. */
function kopecksOf(value: string, parameter: string): bigint {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) throw invalidRequest(`${parameter} must be a decimal string with at most 2 decimals, such as "500.00"`, parameter);
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

const valueOf = (kopecks: bigint) => `${kopecks / 100n}.${(kopecks % 100n).toString().padStart(2, '0')}`;
const amountJson = (kopecks: bigint, currency: string) => ({ value: valueOf(kopecks), currency });
const iso = (at: number) => new Date(at).toISOString();

const amountSchema = z.object({ value: z.string(), currency: z.string() });
const receiptSchema = z.object({
  customer: z.object({ email: z.email().optional(), phone: z.string().regex(/^\d{11,15}$/).optional(), full_name: z.string().optional() }).refine((customer) => customer.email || customer.phone, 'customer.email or customer.phone is required'),
  items: z
    .array(
      z.object({
        description: z.string().min(1).max(128),
        quantity: z.union([z.string(), z.number()]),
        amount: amountSchema,
        vat_code: z.union([z.number().int().min(1).max(12), z.string().regex(/^([1-9]|1[0-2])$/)]),
        payment_subject: z.string().optional(),
        payment_mode: z.string().optional(),
      }),
    )
    .min(1)
    .max(100),
});
const paymentSchema = z.object({
  amount: amountSchema,
  description: z.string().max(128).optional(),
  capture: z.boolean().optional(),
  confirmation: z.object({ type: z.literal('redirect'), return_url: z.url({ protocol: /^https?$/ }), locale: z.enum(['ru_RU', 'en_US']).optional() }),
  metadata: z.record(z.string().max(32), z.string().max(512)).optional(),
  receipt: receiptSchema.optional(),
});
const refundSchema = z.object({ payment_id: z.string(), amount: amountSchema, description: z.string().max(250).optional(), receipt: receiptSchema.optional() });
const webhookSchema = z.object({ event: z.enum(webhookEvents), url: z.url({ protocol: /^https?$/ }) });
const captureSchema = z.object({ amount: amountSchema.optional() });

/** The first problem zod found, as YooKassa reports one: the parameter and what is wrong with it. */
function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const parameter = issue.path.join('.');
  throw invalidRequest(`${parameter || 'body'}: ${issue.message}`, parameter || undefined);
}

/** The receipt's items must add up to the amount paid (value × quantity), as a register would print them. */
function checkReceipt(receipt: z.infer<typeof receiptSchema>, totalKopecks: bigint, currency: string): void {
  let thousandths = 0n; // kopecks × 1000: quantities have up to 3 decimals
  for (const [index, item] of receipt.items.entries()) {
    const quantity = /^(\d{1,6})(?:\.(\d{1,3}))?$/.exec(String(item.quantity));
    if (!quantity || (quantity[1] === '0' && !/[1-9]/.test(quantity[2] ?? ''))) throw invalidRequest('quantity must be a positive decimal with at most 3 decimals', `receipt.items.${index}.quantity`);
    if (item.amount.currency !== currency) throw invalidRequest('the item is in another currency than the payment', `receipt.items.${index}.amount.currency`);
    thousandths += kopecksOf(item.amount.value, `receipt.items.${index}.amount.value`) * (BigInt(quantity[1]!) * 1000n + BigInt((quantity[2] ?? '').padEnd(3, '0')));
  }
  if (thousandths !== totalKopecks * 1000n) throw invalidRequest('the receipt items do not add up to the amount', 'receipt.items');
}

/** Keys are up to 64 characters (YooKassa's limit); every POST needs one. */
function checkKey(key: string | undefined): string {
  if (!key) throw invalidRequest('Idempotence-Key header is missing', 'Idempotence-Key');
  if (key.length > 64) throw invalidRequest('Idempotence-Key is longer than 64 characters', 'Idempotence-Key');
  return key;
}

export class YookassaShop {
  private readonly payments = new Map<string, SimPayment>();
  private readonly refunds = new Map<string, SimRefund>();
  private readonly webhooks = new Map<string, SimWebhook>();
  /** Idempotence keys per operation kind: the same key is the same object (kept for the instance's life, not 24 h). */
  private readonly keys = new Map<string, string>();
  private seq = 0;

  constructor(
    /** The shop id payments are made to (recipient.account_id). */
    private readonly shopId = '100500',
    private readonly now: () => number = Date.now,
  ) {}

  createPayment(body: unknown, key: string | undefined): SimPayment {
    const idempotenceKey = checkKey(key);
    const again = this.keys.get(`payment:${idempotenceKey}`);
    if (again) return this.payments.get(again)!;
    const request = parse(paymentSchema, body);
    if (request.amount.currency !== 'RUB') throw invalidRequest('this shop accepts RUB only', 'amount.currency');
    const amountKopecks = kopecksOf(request.amount.value, 'amount.value');
    if (amountKopecks < 100n) throw invalidRequest('amount.value must be at least 1.00 RUB', 'amount.value');
    if (request.metadata && Object.keys(request.metadata).length > 16) throw invalidRequest('metadata has more than 16 keys', 'metadata');
    if (request.receipt) checkReceipt(request.receipt, amountKopecks, request.amount.currency);
    const payment: SimPayment = {
      id: randomUUID(),
      seq: ++this.seq,
      status: 'pending',
      amountKopecks,
      currency: request.amount.currency,
      description: request.description,
      capture: request.capture ?? false, // YooKassa's default: two stages
      returnUrl: request.confirmation.return_url,
      locale: request.confirmation.locale ?? 'ru_RU',
      metadata: request.metadata,
      receipt: request.receipt !== undefined,
      createdAt: this.now(),
      capturedAt: undefined,
      refundedKopecks: 0n,
      cancellation: undefined,
    };
    this.payments.set(payment.id, payment);
    this.keys.set(`payment:${idempotenceKey}`, payment.id);
    return payment;
  }

  payment(id: string): SimPayment {
    const payment = this.payments.get(id);
    if (!payment) throw new YookassaSimError(404, 'not_found', `Payment ${id} not found`, 'payment_id');
    return payment;
  }

  /** GET /payments: newest first, filtered by created_at and status, `limit` (1-100, default 10) a page, a cursor to the next. */
  listPayments(query: URLSearchParams): { items: SimPayment[]; nextCursor: string | undefined } {
    const limitText = query.get('limit') ?? '10';
    const limit = Number(limitText);
    if (!/^\d{1,3}$/.test(limitText) || limit < 1 || limit > 100) throw invalidRequest('limit must be 1-100', 'limit');
    const bounds: [string, (created: number, bound: number) => boolean][] = [
      ['created_at.gte', (created, bound) => created >= bound],
      ['created_at.gt', (created, bound) => created > bound],
      ['created_at.lte', (created, bound) => created <= bound],
      ['created_at.lt', (created, bound) => created < bound],
    ];
    const filters = bounds.flatMap(([name, holds]) => {
      const text = query.get(name);
      if (text === null) return [];
      const bound = Date.parse(text);
      if (Number.isNaN(bound)) throw invalidRequest(`${name} must be an ISO 8601 date`, name);
      return [(payment: SimPayment) => holds(payment.createdAt, bound)];
    });
    const status = query.get('status');
    let before = Number.POSITIVE_INFINITY;
    const cursor = query.get('cursor');
    if (cursor) {
      const decoded = /^seq:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (!decoded) throw invalidRequest('cursor is not one this API gave', 'cursor');
      before = Number(decoded[1]);
    }
    const matching = [...this.payments.values()]
      .filter((payment) => payment.seq < before && (status === null || payment.status === status) && filters.every((filter) => filter(payment)))
      .sort((a, b) => b.seq - a.seq);
    const items = matching.slice(0, limit);
    const nextCursor = matching.length > limit ? Buffer.from(`seq:${items[items.length - 1]!.seq}`).toString('base64url') : undefined;
    return { items, nextCursor };
  }

  /** The customer paid on the hosted page: succeeded (or waiting_for_capture for a two-stage payment). */
  pay(id: string, notify: NotifyMode): SimEvent[] {
    const payment = this.payment(id);
    if (payment.status !== 'pending') return [];
    if (!payment.capture) {
      payment.status = 'waiting_for_capture';
      return [this.paymentEvent('payment.waiting_for_capture', payment, notify)];
    }
    payment.status = 'succeeded';
    payment.capturedAt = this.now();
    return [this.paymentEvent('payment.succeeded', payment, notify)];
  }

  /** The customer gave up on the hosted page (YooKassa cancels such a payment once its confirmation expires). */
  cancel(id: string, notify: NotifyMode, reason = 'expired_on_confirmation'): SimEvent[] {
    const payment = this.payment(id);
    if (payment.status !== 'pending' && payment.status !== 'waiting_for_capture') return [];
    payment.status = 'canceled';
    payment.cancellation = { party: reason === 'canceled_by_merchant' ? 'merchant' : 'yoo_money', reason };
    return [this.paymentEvent('payment.canceled', payment, notify)];
  }

  /** POST /payments/{id}/capture: takes the held money of a two-stage payment (all of it, or less). */
  capture(id: string, body: unknown, key: string | undefined): { payment: SimPayment; events: SimEvent[] } {
    checkKey(key);
    const payment = this.payment(id);
    const request = parse(captureSchema, body ?? {});
    if (payment.status === 'succeeded') return { payment, events: [] };
    if (payment.status !== 'waiting_for_capture') throw invalidRequest(`payment ${id} is ${payment.status}: only a payment waiting_for_capture can be captured`, 'payment_id');
    if (request.amount && kopecksOf(request.amount.value, 'amount.value') !== payment.amountKopecks) throw invalidRequest('the simulator captures the whole amount only', 'amount');
    payment.status = 'succeeded';
    payment.capturedAt = this.now();
    return { payment, events: [this.paymentEvent('payment.succeeded', payment, this.notifyOf(payment))] };
  }

  /** POST /payments/{id}/cancel: the merchant lets a two-stage payment go. */
  cancelByMerchant(id: string, key: string | undefined): { payment: SimPayment; events: SimEvent[] } {
    checkKey(key);
    const payment = this.payment(id);
    if (payment.status === 'canceled') return { payment, events: [] };
    if (payment.status !== 'waiting_for_capture') throw invalidRequest(`payment ${id} is ${payment.status}: only a payment waiting_for_capture can be canceled`, 'payment_id');
    return { payment, events: this.cancel(id, this.notifyOf(payment), 'canceled_by_merchant') };
  }

  /**
   * POST /refunds: of a succeeded payment, at most what is left of it. A partial refund of a
   * payment with a receipt needs the refund receipt; a whole refund reuses the payment's.
   */
  createRefund(body: unknown, key: string | undefined): { refund: SimRefund; events: SimEvent[] } {
    const idempotenceKey = checkKey(key);
    const again = this.keys.get(`refund:${idempotenceKey}`);
    if (again) return { refund: this.refunds.get(again)!, events: [] };
    const request = parse(refundSchema, body);
    const payment = this.payments.get(request.payment_id);
    if (!payment) throw invalidRequest(`Payment ${request.payment_id} not found`, 'payment_id');
    if (payment.status !== 'succeeded') throw invalidRequest(`payment ${payment.id} is ${payment.status}: only a succeeded payment can be refunded`, 'payment_id');
    if (request.amount.currency !== payment.currency) throw invalidRequest('the refund is in another currency than the payment', 'amount.currency');
    const amountKopecks = kopecksOf(request.amount.value, 'amount.value');
    const left = payment.amountKopecks - payment.refundedKopecks;
    if (amountKopecks <= 0n) throw invalidRequest('amount.value must be more than 0', 'amount.value');
    if (amountKopecks > left) throw invalidRequest(`Refund amount exceeds the amount available for refund (${valueOf(left)} ${payment.currency})`, 'amount');
    const partial = amountKopecks !== payment.amountKopecks;
    if (payment.receipt && partial && !request.receipt) throw invalidRequest('a partial refund of a payment with a receipt needs the refund receipt', 'receipt');
    if (request.receipt) checkReceipt(request.receipt, amountKopecks, payment.currency);
    const refund: SimRefund = { id: randomUUID(), paymentId: payment.id, amountKopecks, currency: payment.currency, receipt: payment.receipt, createdAt: this.now(), status: 'succeeded' };
    payment.refundedKopecks += amountKopecks;
    this.refunds.set(refund.id, refund);
    this.keys.set(`refund:${idempotenceKey}`, refund.id);
    return { refund, events: [{ event: 'refund.succeeded', object: this.refundJson(refund), notify: this.notifyOf(payment) }] };
  }

  refund(id: string): SimRefund {
    const refund = this.refunds.get(id);
    if (!refund) throw new YookassaSimError(404, 'not_found', `Refund ${id} not found`, 'refund_id');
    return refund;
  }

  /** POST /webhooks: one subscription per event and URL (asking again gives the same one). */
  addWebhook(body: unknown, key: string | undefined): SimWebhook {
    checkKey(key);
    const request = parse(webhookSchema, body);
    const existing = [...this.webhooks.values()].find((webhook) => webhook.event === request.event && webhook.url === request.url);
    if (existing) return existing;
    const webhook: SimWebhook = { id: `wh-${randomUUID()}`, event: request.event, url: request.url };
    this.webhooks.set(webhook.id, webhook);
    return webhook;
  }

  listWebhooks(): SimWebhook[] {
    return [...this.webhooks.values()];
  }

  removeWebhook(id: string): void {
    if (!this.webhooks.delete(id)) throw new YookassaSimError(404, 'not_found', `Webhook ${id} not found`, 'webhook_id');
  }

  /** The URLs subscribed to `event`. */
  subscribers(event: string): string[] {
    return [...this.webhooks.values()].filter((webhook) => webhook.event === event).map((webhook) => webhook.url);
  }

  /** The payment's own fault switch (metadata.sim_notify), else normal. */
  notifyOf(payment: SimPayment): NotifyMode {
    const mode = payment.metadata?.sim_notify;
    return notifyModes.includes(mode as NotifyMode) ? (mode as NotifyMode) : 'normal';
  }

  private paymentEvent(event: string, payment: SimPayment, notify: NotifyMode): SimEvent {
    return { event, object: this.paymentJson(payment, undefined), notify };
  }

  /** The payment object of the API; `checkoutUrl` is the hosted page (shown while it can still be paid). */
  paymentJson(payment: SimPayment, checkoutUrl: string | undefined): Record<string, unknown> {
    const left = payment.amountKopecks - payment.refundedKopecks;
    const receiptRegistration = !payment.receipt ? undefined : payment.status === 'succeeded' ? 'succeeded' : payment.status === 'canceled' ? 'canceled' : 'pending';
    return {
      id: payment.id,
      status: payment.status,
      paid: payment.status === 'succeeded' || payment.status === 'waiting_for_capture',
      amount: amountJson(payment.amountKopecks, payment.currency),
      ...(payment.status === 'succeeded' ? { income_amount: amountJson(payment.amountKopecks - (payment.amountKopecks * 35n) / 1000n, payment.currency) } : {}),
      ...(payment.description === undefined ? {} : { description: payment.description }),
      recipient: { account_id: this.shopId, gateway_id: '1000001' },
      created_at: iso(payment.createdAt),
      ...(payment.capturedAt === undefined ? {} : { captured_at: iso(payment.capturedAt) }),
      ...(payment.status === 'pending' && checkoutUrl
        ? { confirmation: { type: 'redirect', confirmation_url: checkoutUrl, return_url: payment.returnUrl }, expires_at: iso(payment.createdAt + 3_600_000) }
        : {}),
      test: true,
      ...(payment.refundedKopecks > 0n ? { refunded_amount: amountJson(payment.refundedKopecks, payment.currency) } : {}),
      refundable: payment.status === 'succeeded' && left > 0n,
      metadata: payment.metadata ?? {},
      ...(payment.cancellation ? { cancellation_details: payment.cancellation } : {}),
      ...(receiptRegistration ? { receipt_registration: receiptRegistration } : {}),
    };
  }

  refundJson(refund: SimRefund): Record<string, unknown> {
    return {
      id: refund.id,
      payment_id: refund.paymentId,
      status: refund.status,
      amount: amountJson(refund.amountKopecks, refund.currency),
      created_at: iso(refund.createdAt),
      ...(refund.receipt ? { receipt_registration: 'succeeded' } : {}),
    };
  }
}
