// One simulated Stripe account: its Checkout Sessions, PaymentIntents, Charges and Refunds,
// and what happens to them (a session paid or expired, a refund made).
// The objects are answered in Stripe's own shape (snake_case, amounts in the currency's minor
// unit, times in seconds); every change that Stripe announces is handed to `onEvent` as the
// event Stripe would send (stripe-webhooks.ts signs and delivers it to the endpoints of stripe-webhook-endpoints.ts).
import { randomBytes } from 'node:crypto';
import { invalidParameter, noSuch, StripeSimError } from './stripe-errors.js';
import { expandObject } from './stripe-expand.js';
import type { FormObject } from './stripe-form.js';
import { integerOf, listPage, metadataOf, optionalString, refuseUnknown, requiredString, urlOf } from './stripe-params.js';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `cs_test_a1B2…`: Stripe's ids are a prefix and random letters and digits. */
export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return `${prefix}_${id}`;
}

export type WireObject = Record<string, unknown>;

interface Session {
  readonly id: string;
  readonly created: number;
  readonly expiresAt: number;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'unpaid' | 'paid';
  readonly amountTotal: number;
  readonly currency: string;
  readonly productName: string;
  readonly clientReferenceId: string | null;
  readonly customerEmail: string | null;
  readonly metadata: Record<string, string>;
  readonly paymentIntentMetadata: Record<string, string>;
  readonly locale: string | null;
  readonly successUrl: string;
  readonly cancelUrl: string | null;
  paymentIntent: string | null;
}

interface PaymentIntent {
  readonly id: string;
  readonly created: number;
  readonly amount: number;
  readonly currency: string;
  readonly metadata: Record<string, string>;
  readonly latestCharge: string;
}

interface Charge {
  readonly id: string;
  readonly created: number;
  readonly amount: number;
  readonly currency: string;
  readonly paymentIntent: string;
  amountRefunded: number;
}

interface Refund {
  readonly id: string;
  readonly created: number;
  readonly amount: number;
  readonly currency: string;
  readonly charge: string;
  readonly paymentIntent: string;
  readonly reason: string | null;
  readonly metadata: Record<string, string>;
  readonly status: 'succeeded';
}

export interface StripeEvent {
  readonly id: string;
  readonly type: string;
  readonly created: number;
  /** The object as it was when the event happened. */
  readonly object: WireObject;
  /** The session it concerns, for the simulator's own record of deliveries. */
  readonly sessionId: string | null;
}

/** How an event leaves: `hold` signs it for every endpoint but sends nothing (the `?notify=none` switch). */
export type EventHandler = (event: StripeEvent, options: { readonly hold: boolean }) => void;

const sessionParameters = new Set(['mode', 'line_items', 'success_url', 'cancel_url', 'client_reference_id', 'customer_email', 'metadata', 'locale', 'payment_intent_data', 'expires_at', 'payment_method_types', 'expand']);
const refundParameters = new Set(['payment_intent', 'charge', 'amount', 'reason', 'metadata', 'expand']);

const seconds = (ms: number) => Math.floor(ms / 1000);

export class StripeShop {
  private readonly sessions = new Map<string, Session>();
  private readonly paymentIntents = new Map<string, PaymentIntent>();
  private readonly charges = new Map<string, Charge>();
  private readonly refunds = new Map<string, Refund>();

  constructor(
    private readonly onEvent: EventHandler,
    private readonly now: () => number = Date.now,
  ) {}

  // --- Checkout Sessions ---------------------------------------------------------------------

  createSession(params: FormObject, origin: string): WireObject {
    refuseUnknown(params, sessionParameters);
    const mode = requiredString(params, 'mode');
    if (mode !== 'payment') throw invalidParameter('mode', `The simulator plays mode=payment only, not ${mode}`, 'parameter_invalid_string');
    const items = params.line_items;
    if (!Array.isArray(items) || items.length === 0) throw new StripeSimError(400, 'invalid_request_error', 'Missing required param: line_items.', 'parameter_missing', 'line_items');
    let amountTotal = 0;
    let currency: string | undefined;
    const names: string[] = [];
    items.forEach((item, index) => {
      const at = `line_items[${index}]`;
      if (typeof item !== 'object' || Array.isArray(item)) throw invalidParameter(at, `Invalid object: ${at}`, 'parameter_invalid_object');
      const quantity = integerOf(item.quantity, `${at}[quantity]`, 1);
      if (quantity === undefined) throw new StripeSimError(400, 'invalid_request_error', `Missing required param: ${at}[quantity].`, 'parameter_missing', `${at}[quantity]`);
      const priceData = item.price_data;
      if (typeof priceData !== 'object' || Array.isArray(priceData)) throw new StripeSimError(400, 'invalid_request_error', `The simulator needs ${at}[price_data] (prices by id are not simulated).`, 'parameter_missing', `${at}[price_data]`);
      const itemCurrency = typeof priceData.currency === 'string' ? priceData.currency : '';
      if (!/^[a-z]{3}$/.test(itemCurrency)) throw invalidParameter(`${at}[price_data][currency]`, `Invalid currency: ${itemCurrency}`, 'parameter_invalid_string');
      if (currency !== undefined && currency !== itemCurrency) throw invalidParameter(`${at}[price_data][currency]`, 'All line items must be in the same currency');
      currency = itemCurrency;
      const unitAmount = integerOf(priceData.unit_amount, `${at}[price_data][unit_amount]`, 0);
      if (unitAmount === undefined) throw new StripeSimError(400, 'invalid_request_error', `Missing required param: ${at}[price_data][unit_amount].`, 'parameter_missing', `${at}[price_data][unit_amount]`);
      const product = priceData.product_data;
      const name = typeof product === 'object' && !Array.isArray(product) && typeof product.name === 'string' ? product.name : '';
      if (name === '') throw new StripeSimError(400, 'invalid_request_error', `Missing required param: ${at}[price_data][product_data][name].`, 'parameter_missing', `${at}[price_data][product_data][name]`);
      names.push(name);
      amountTotal += unitAmount * quantity;
    });
    if (amountTotal <= 0 || amountTotal > 99_999_999) throw new StripeSimError(400, 'invalid_request_error', 'The Checkout Session total must be at least 1 and at most 99999999 in the currency’s minor unit', amountTotal <= 0 ? 'amount_too_small' : 'amount_too_large', 'line_items');
    const customerEmail = optionalString(params, 'customer_email', 800);
    if (customerEmail !== null && !/^[^\s@]+@[^\s@]+$/.test(customerEmail)) throw invalidParameter('customer_email', 'Invalid email address: customer_email', 'email_invalid');
    const created = seconds(this.now());
    const expiresAt = integerOf(params.expires_at, 'expires_at', created + 30 * 60) ?? created + 24 * 60 * 60;
    const paymentIntentData = params.payment_intent_data;
    if (paymentIntentData !== undefined && (typeof paymentIntentData !== 'object' || Array.isArray(paymentIntentData))) throw invalidParameter('payment_intent_data', 'Invalid object: payment_intent_data', 'parameter_invalid_object');
    const session: Session = {
      id: stripeId('cs_test', 58),
      created,
      expiresAt,
      status: 'open',
      paymentStatus: 'unpaid',
      amountTotal,
      currency: currency!,
      productName: names.join(', '),
      clientReferenceId: optionalString(params, 'client_reference_id', 200),
      customerEmail,
      metadata: metadataOf(params.metadata, 'metadata'),
      paymentIntentMetadata: metadataOf(paymentIntentData?.metadata, 'payment_intent_data[metadata]'),
      locale: optionalString(params, 'locale', 10),
      successUrl: urlOf(params, 'success_url', true)!,
      cancelUrl: urlOf(params, 'cancel_url', false),
      paymentIntent: null,
    };
    this.sessions.set(session.id, session);
    this.checkoutUrls.set(session.id, `${origin}/stripe/checkout/${session.id}`);
    return this.renderSession(session);
  }

  /** Where each session's hosted page is (its url while open). */
  private readonly checkoutUrls = new Map<string, string>();

  private session(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw noSuch('checkout.session', id, 'session');
    this.expireIfDue(session);
    return session;
  }

  /** A session past its expires_at expires when next looked at, as Stripe expires it within the hour. */
  private expireIfDue(session: Session): void {
    if (session.status === 'open' && seconds(this.now()) >= session.expiresAt) this.expire(session, false);
  }

  retrieveSession(id: string): WireObject {
    return this.renderSession(this.session(id));
  }

  /** The session the hosted page shows: its state, amount and the page's texts' language. */
  checkoutView(id: string): { readonly status: Session['status']; readonly amountTotal: number; readonly currency: string; readonly productName: string; readonly locale: string | null; readonly customerEmail: string | null } | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    this.expireIfDue(session);
    return session;
  }

  listSessions(params: FormObject): WireObject {
    const all = [...this.sessions.values()];
    for (const session of all) this.expireIfDue(session);
    const created = params.created;
    const filtered = all.filter((session) => {
      if (typeof created === 'string' && session.created !== integerOf(created, 'created', 0)) return false;
      if (typeof created === 'object' && !Array.isArray(created)) {
        const bound = (name: string) => integerOf(created[name], `created[${name}]`, 0);
        const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')];
        if (gt !== undefined && !(session.created > gt)) return false;
        if (gte !== undefined && !(session.created >= gte)) return false;
        if (lt !== undefined && !(session.created < lt)) return false;
        if (lte !== undefined && !(session.created <= lte)) return false;
      }
      if (typeof params.status === 'string' && session.status !== params.status) return false;
      if (typeof params.payment_intent === 'string' && session.paymentIntent !== params.payment_intent) return false;
      return true;
    });
    return listPage(filtered.reverse(), params, '/v1/checkout/sessions', (session) => this.renderSession(session));
  }

  /** The hosted page's Pay: the card is charged, the session completes (a PaymentIntent and its Charge), checkout.session.completed goes out. */
  pay(id: string, options: { readonly hold: boolean }): { readonly successUrl: string } {
    const session = this.session(id);
    if (session.status === 'complete') return { successUrl: session.successUrl };
    if (session.status !== 'open') throw new StripeSimError(400, 'invalid_request_error', 'This Checkout Session has expired', 'checkout_session_expired');
    const created = seconds(this.now());
    const intent: PaymentIntent = { id: stripeId('pi'), created, amount: session.amountTotal, currency: session.currency, metadata: session.paymentIntentMetadata, latestCharge: stripeId('ch') };
    this.charges.set(intent.latestCharge, { id: intent.latestCharge, created, amount: intent.amount, currency: intent.currency, paymentIntent: intent.id, amountRefunded: 0 });
    this.paymentIntents.set(intent.id, intent);
    session.paymentIntent = intent.id;
    session.status = 'complete';
    session.paymentStatus = 'paid';
    this.announce('checkout.session.completed', this.renderSession(session), session.id, options.hold);
    return { successUrl: session.successUrl };
  }

  /** The hosted page's Cancel: the session stays open (Stripe's does); where the browser goes back to. */
  cancelUrl(id: string): string | null {
    return this.session(id).cancelUrl;
  }

  /** POST /v1/checkout/sessions/:id/expire: an open session expires at once, checkout.session.expired goes out. */
  expireSession(id: string): WireObject {
    const session = this.session(id);
    if (session.status !== 'open') throw new StripeSimError(400, 'invalid_request_error', `Only Checkout Sessions with a status in ["open"] can be expired. This session has a status of "${session.status}".`, 'checkout_session_not_open');
    this.expire(session, false);
    return this.renderSession(session);
  }

  private expire(session: Session, hold: boolean): void {
    session.status = 'expired';
    this.announce('checkout.session.expired', this.renderSession(session), session.id, hold);
  }

  private renderSession(session: Session): WireObject {
    return {
      id: session.id,
      object: 'checkout.session',
      amount_subtotal: session.amountTotal,
      amount_total: session.amountTotal,
      cancel_url: session.cancelUrl,
      client_reference_id: session.clientReferenceId,
      created: session.created,
      currency: session.currency,
      customer: null,
      customer_details: session.status === 'complete' ? { email: session.customerEmail, name: null, phone: null } : null,
      customer_email: session.customerEmail,
      expires_at: session.expiresAt,
      livemode: false,
      locale: session.locale,
      metadata: { ...session.metadata },
      mode: 'payment',
      payment_intent: session.paymentIntent,
      payment_method_types: ['card'],
      payment_status: session.paymentStatus,
      status: session.status,
      success_url: session.successUrl,
      url: session.status === 'open' ? (this.checkoutUrls.get(session.id) ?? null) : null,
    };
  }

  // --- PaymentIntents, Charges ----------------------------------------------------------------

  retrievePaymentIntent(id: string): WireObject {
    const intent = this.paymentIntents.get(id);
    if (!intent) throw noSuch('payment_intent', id, 'intent');
    return this.renderPaymentIntent(intent);
  }

  private renderPaymentIntent(intent: PaymentIntent): WireObject {
    return {
      id: intent.id,
      object: 'payment_intent',
      amount: intent.amount,
      amount_received: intent.amount,
      created: intent.created,
      currency: intent.currency,
      latest_charge: intent.latestCharge,
      livemode: false,
      metadata: { ...intent.metadata },
      payment_method_types: ['card'],
      status: 'succeeded',
    };
  }

  retrieveCharge(id: string): WireObject {
    const charge = this.charges.get(id);
    if (!charge) throw noSuch('charge', id, 'charge');
    return this.renderCharge(charge);
  }

  private renderCharge(charge: Charge): WireObject {
    return {
      id: charge.id,
      object: 'charge',
      amount: charge.amount,
      amount_captured: charge.amount,
      amount_refunded: charge.amountRefunded,
      captured: true,
      created: charge.created,
      currency: charge.currency,
      livemode: false,
      paid: true,
      payment_intent: charge.paymentIntent,
      refunded: charge.amountRefunded >= charge.amount,
      status: 'succeeded',
    };
  }

  // --- Refunds --------------------------------------------------------------------------------

  createRefund(params: FormObject): WireObject {
    refuseUnknown(params, refundParameters);
    const intentId = optionalString(params, 'payment_intent', 100);
    const chargeId = optionalString(params, 'charge', 100) ?? (intentId === null ? null : (this.paymentIntents.get(intentId)?.latestCharge ?? null));
    if (intentId === null && chargeId === null) throw new StripeSimError(400, 'invalid_request_error', 'One of the following params should be provided for this request: payment_intent or charge.', 'parameter_missing');
    if (chargeId === null) throw noSuch('payment_intent', intentId!, 'payment_intent');
    const charge = this.charges.get(chargeId);
    if (!charge) throw noSuch('charge', chargeId, 'charge');
    if (intentId !== null && charge.paymentIntent !== intentId) throw invalidParameter('charge', `Charge ${chargeId} does not belong to PaymentIntent ${intentId}`);
    const remaining = charge.amount - charge.amountRefunded;
    if (remaining <= 0) throw new StripeSimError(400, 'invalid_request_error', `Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
    const amount = integerOf(params.amount, 'amount', 1) ?? remaining;
    if (amount > remaining) {
      throw new StripeSimError(400, 'invalid_request_error', `Refund amount (${amount} ${charge.currency}) is greater than unrefunded amount on charge (${remaining} ${charge.currency})`, 'amount_too_large', 'amount');
    }
    const reason = optionalString(params, 'reason', 40);
    if (reason !== null && !['duplicate', 'fraudulent', 'requested_by_customer'].includes(reason)) throw invalidParameter('reason', `Invalid reason: ${reason}`);
    const refund: Refund = { id: stripeId('re'), created: seconds(this.now()), amount, currency: charge.currency, charge: charge.id, paymentIntent: charge.paymentIntent, reason, metadata: metadataOf(params.metadata, 'metadata'), status: 'succeeded' };
    charge.amountRefunded += amount;
    this.refunds.set(refund.id, refund);
    this.announce('charge.refunded', this.renderCharge(charge), null, false);
    return this.renderRefund(refund);
  }

  retrieveRefund(id: string): WireObject {
    const refund = this.refunds.get(id);
    if (!refund) throw noSuch('refund', id, 'refund');
    return this.renderRefund(refund);
  }

  listRefunds(params: FormObject): WireObject {
    const all = [...this.refunds.values()].filter(
      (refund) => (typeof params.payment_intent !== 'string' || refund.paymentIntent === params.payment_intent) && (typeof params.charge !== 'string' || refund.charge === params.charge),
    );
    return listPage(all.reverse(), params, '/v1/refunds', (refund) => this.renderRefund(refund));
  }

  private renderRefund(refund: Refund): WireObject {
    return {
      id: refund.id,
      object: 'refund',
      amount: refund.amount,
      charge: refund.charge,
      created: refund.created,
      currency: refund.currency,
      metadata: { ...refund.metadata },
      payment_intent: refund.paymentIntent,
      reason: refund.reason,
      status: refund.status,
    };
  }

  // --- Events, expansion ----------------------------------------------------------------------

  private announce(type: string, object: WireObject, sessionId: string | null, hold: boolean): void {
    this.onEvent({ id: stripeId('evt'), type, created: seconds(this.now()), object, sessionId }, { hold });
  }

  /** `expand[]` (stripe-expand.ts) over this shop's objects. */
  expand(object: WireObject, paths: readonly string[]): WireObject {
    return expandObject(object, paths, (id) => this.objectById(id));
  }

  private objectById(id: string): WireObject | undefined {
    if (id.startsWith('pi_') && this.paymentIntents.has(id)) return this.renderPaymentIntent(this.paymentIntents.get(id)!);
    if (id.startsWith('ch_') && this.charges.has(id)) return this.renderCharge(this.charges.get(id)!);
    if (id.startsWith('cs_') && this.sessions.has(id)) return this.renderSession(this.sessions.get(id)!);
    return undefined;
  }
}
