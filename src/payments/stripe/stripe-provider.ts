// Stripe Checkout (docs/payments.md, "Stripe"): the PaymentProvider over the official `stripe`
// package, which is loaded here, when payments.stripe is configured, and never at a start
// without it.
//
// - A payment is a Checkout Session (mode payment, one line item in `currency`), created with
//   our payment id as its idempotency key, client_reference_id and metadata.payment_id; the
//   customer pays on the session's url.
// - A webhook is verified with the package's own signature check (stripe.webhooks.constructEvent,
//   its default tolerance of 5 minutes against the gateway's clock) and only says which session
//   to look at: payments.ts reads the session from the API before anything is credited.
// - With `api_url: sim` the built-in simulator plays Stripe: the webhook endpoint is registered
//   through its API at start and the signing secret it answers verifies the events (no
//   webhook_secret_env needed). A real account's endpoint is made in the Stripe dashboard.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type Stripe from 'stripe';
import type { StripeConfig } from '../../config/load.js';
import type { Logger } from '../../observability/logger.js';
import { NotificationRefusedError, type NewProviderPayment, type NotificationRequest, type PaymentProvider, type ProviderPayment, type ProviderRefund, ProviderRefusedError } from '../provider.js';
import { stripeAddress, withBasePath } from './stripe-address.js';
import { paymentEventTypes, paymentOfSession, refundOf, sessionIdOfEvent } from './stripe-objects.js';

/** The key the simulator is called with when STRIPE_SECRET_KEY is not set (it takes any sk_test_ key). */
const simulatedSecretKey = 'sk_test_gateway_simulator';
/** What the package may wait for one answer; it retries a connection failure or a 409/5xx twice with the same idempotency key. */
const requestTimeoutMs = 30_000;

type StripeModule = typeof Stripe;

interface StripeContext {
  readonly apiUrl: string;
  readonly simulated: boolean;
  readonly logger: Logger;
  readonly now: () => number;
}

export async function openStripe(config: StripeConfig, context: StripeContext): Promise<PaymentProvider> {
  const { default: StripeClient } = await import('stripe');
  return new StripeProvider(StripeClient, config, context);
}

class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly currency: string;
  readonly rubRate: string;
  private readonly client: Stripe | undefined;
  private readonly agent: HttpAgent;
  /** The signing secret of the simulator's endpoint, once registered (start). */
  private simulatorSecret: string | undefined;

  constructor(
    private readonly StripeClient: StripeModule,
    private readonly config: StripeConfig,
    private readonly context: StripeContext,
  ) {
    this.currency = config.currency;
    this.rubRate = config.rubRate;
    const address = stripeAddress(context.apiUrl);
    // Our own agent, so that close() leaves no socket open behind it.
    this.agent = address.protocol === 'http' ? new HttpAgent({ keepAlive: true }) : new HttpsAgent({ keepAlive: true });
    const secretKey = config.secretKey ?? (context.simulated ? simulatedSecretKey : undefined);
    // Without the key (a command that opens the services without serving), each call says so; serve refuses to start without it.
    this.client =
      secretKey === undefined
        ? undefined
        : new StripeClient(secretKey, {
            host: address.host,
            port: address.port,
            protocol: address.protocol,
            httpClient: withBasePath(StripeClient.createNodeHttpClient(this.agent), address.basePath),
            timeout: requestTimeoutMs,
            maxNetworkRetries: 2,
            telemetry: false,
          });
  }

  private get stripe(): Stripe {
    if (!this.client) throw new Error(`payments.stripe.secret_key_env names ${this.config.secretKeyEnv}, which is not set in this process's environment`);
    return this.client;
  }

  async create(payment: NewProviderPayment): Promise<{ payment: ProviderPayment; confirmationUrl: string }> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency: payment.currency, unit_amount: Number(payment.amountMinor), product_data: { name: payment.description } } }],
        client_reference_id: payment.reference,
        metadata: { payment_id: payment.reference },
        payment_intent_data: { metadata: { payment_id: payment.reference } },
        ...(payment.email === null ? {} : { customer_email: payment.email }),
        success_url: payment.returnUrl,
        cancel_url: payment.cancelUrl,
        locale: payment.locale,
      },
      { idempotencyKey: payment.reference },
    );
    if (!session.url) throw new Error(`Stripe answered Checkout Session ${session.id} (${session.status}) without a page to pay on`);
    return { payment: paymentOfSession(session), confirmationUrl: session.url };
  }

  async fetch(providerPaymentId: string): Promise<ProviderPayment> {
    const session = await this.stripe.checkout.sessions.retrieve(providerPaymentId, { expand: ['payment_intent.latest_charge'] });
    return paymentOfSession(session);
  }

  /**
   * Refunds through the session's PaymentIntent. A refund made before with the same key
   * (found by metadata.refund_id) is answered as it stands now: Stripe replays an idempotent
   * answer as it was (a pending refund would read pending for ever) and forgets the key after
   * 24 hours (a sweeper asking later would refund twice).
   */
  async refund(input: { readonly providerPaymentId: string; readonly amountMinor: bigint; readonly currency: string; readonly idempotenceKey: string }): Promise<ProviderRefund> {
    try {
      const session = await this.stripe.checkout.sessions.retrieve(input.providerPaymentId);
      const intentId = typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null);
      if (intentId === null) throw new ProviderRefusedError(this.name, 400, `Checkout Session ${session.id} has no payment to refund (${session.status}, ${session.payment_status})`);
      for await (const earlier of this.stripe.refunds.list({ payment_intent: intentId, limit: 100 })) {
        if (earlier.metadata?.refund_id === input.idempotenceKey) return refundOf(earlier);
      }
      const refund = await this.stripe.refunds.create({ payment_intent: intentId, amount: Number(input.amountMinor), metadata: { refund_id: input.idempotenceKey } }, { idempotencyKey: input.idempotenceKey });
      return refundOf(refund);
    } catch (error) {
      throw this.refusal(error);
    }
  }

  async fetchRefund(refundId: string): Promise<ProviderRefund> {
    try {
      return refundOf(await this.stripe.refunds.retrieve(refundId));
    } catch (error) {
      throw this.refusal(error);
    }
  }

  /**
   * Stripe's 400/404 (StripeInvalidRequestError: more than is left to refund, an unknown
   * payment) is definite: ProviderRefusedError. Anything else (network, 5xx, rate limit, a
   * rejected key) is not, and the sweeper asks again with the same key.
   */
  private refusal(error: unknown): unknown {
    if (error instanceof this.StripeClient.errors.StripeInvalidRequestError) return new ProviderRefusedError(this.name, error.statusCode ?? 400, error.message);
    return error;
  }

  async *list(sinceMs: number): AsyncIterable<ProviderPayment> {
    const sessions = this.stripe.checkout.sessions.list({ created: { gte: Math.floor(sinceMs / 1000) }, limit: 100, expand: ['data.payment_intent.latest_charge'] });
    for await (const session of sessions) yield paymentOfSession(session);
  }

  async readNotification(request: NotificationRequest): Promise<{ readonly providerPaymentId: string } | null> {
    const secret = this.context.simulated ? this.simulatorSecret : this.config.webhookSecret;
    if (secret === undefined) {
      throw new NotificationRefusedError(
        this.context.simulated
          ? 'no webhook endpoint is registered with the Stripe simulator yet'
          : `payments.stripe.webhook_secret_env names ${this.config.webhookSecretEnv}, which is not set: no Stripe event can be verified`,
      );
    }
    const signature = request.headers['stripe-signature'];
    if (typeof signature !== 'string' || signature === '') throw new NotificationRefusedError('the request has no Stripe-Signature header');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(request.rawBody, signature, secret, undefined, undefined, this.context.now());
    } catch (error) {
      // The package's messages run on with a link to its docs: the first line says what failed.
      const reason = ((error as Error)?.message ?? String(error)).split('\n')[0]!.trim();
      throw new NotificationRefusedError(`the Stripe event does not verify: ${reason}`);
    }
    const sessionId = sessionIdOfEvent(event);
    return sessionId === null ? null : { providerPaymentId: sessionId };
  }

  /** The simulator only: its webhook endpoint, made through Stripe's API, and the secret that signs its events. */
  async start(notificationUrl: string): Promise<void> {
    if (!this.context.simulated) return;
    const endpoint = await this.stripe.webhookEndpoints.create({ url: notificationUrl, enabled_events: [...paymentEventTypes], description: 'gateway (simulated)' });
    if (!endpoint.secret) throw new Error('the Stripe simulator answered a webhook endpoint without its signing secret');
    this.simulatorSecret = endpoint.secret;
    this.context.logger.info({ endpoint: endpoint.id, url: notificationUrl }, 'the Stripe simulator sends its events to this gateway');
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}
