// The simulated Stripe's webhooks: every event goes to each endpoint that enabled its type, as
// Stripe sends it — a JSON POST signed in the `Stripe-Signature` header
// (`t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the endpoint's whsec_ secret>`),
// signed afresh at each attempt and tried again a few times while the endpoint does not answer
// 2xx. A held event (the checkout page's `?notify=none`) is signed but not sent: the record of
// deliveries (GET /stripe/__sim/deliveries) lets a test send it itself, late or many times.
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { StripeEvent } from './stripe-shop.js';
import type { WebhookEndpoint } from './stripe-webhook-endpoints.js';

/** The header Stripe signs a delivery with. */
export function stripeSignatureHeader(payload: string, secret: string, timestampSeconds: number): string {
  const signature = createHmac('sha256', secret).update(`${timestampSeconds}.${payload}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${signature}`;
}

export interface Delivery {
  readonly eventId: string;
  readonly type: string;
  readonly sessionId: string | null;
  readonly endpointId: string;
  readonly url: string;
  /** The exact bytes sent (what the signature covers). */
  readonly payload: string;
  /** The Stripe-Signature header of the last attempt (or of the held event). */
  signature: string;
  readonly held: boolean;
  readonly attempts: { readonly at: number; readonly status: number | null; readonly error: string | null }[];
  delivered: boolean;
}

/** After the first attempt: Stripe backs off over days; the simulator over seconds. */
const retryDelaysMs = [250, 1000, 3000];
/** The deliveries kept for GET /stripe/__sim/deliveries (oldest dropped first). */
const keptDeliveries = 2000;
const attemptTimeoutMs = 10_000;

export const fallbackApiVersion = '2025-01-27.acacia';

export class WebhookSender {
  private readonly deliveries: Delivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly endpoints: () => Iterable<WebhookEndpoint>,
    private readonly now: () => number = Date.now,
  ) {}

  publish(event: StripeEvent, options: { readonly hold: boolean }): void {
    const targets = [...this.endpoints()].filter((endpoint) => endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(event.type));
    for (const endpoint of targets) {
      const payload = JSON.stringify(
        {
          id: event.id,
          object: 'event',
          api_version: endpoint.apiVersion ?? fallbackApiVersion,
          created: event.created,
          data: { object: event.object },
          livemode: false,
          pending_webhooks: targets.length,
          request: { id: null, idempotency_key: null },
          type: event.type,
        },
        null,
        2,
      );
      const delivery: Delivery = {
        eventId: event.id,
        type: event.type,
        sessionId: event.sessionId,
        endpointId: endpoint.id,
        url: endpoint.url,
        payload,
        signature: stripeSignatureHeader(payload, endpoint.secret, Math.floor(this.now() / 1000)),
        held: options.hold,
        attempts: [],
        delivered: false,
      };
      this.deliveries.push(delivery);
      if (this.deliveries.length > keptDeliveries) this.deliveries.shift();
      if (!options.hold) void this.attempt(delivery, endpoint.secret, 0);
    }
  }

  /** The deliveries made (or held), oldest first; those of one session when named. */
  list(sessionId?: string): readonly Delivery[] {
    return sessionId === undefined ? this.deliveries : this.deliveries.filter((delivery) => delivery.sessionId === sessionId);
  }

  private async attempt(delivery: Delivery, secret: string, attempt: number): Promise<void> {
    if (this.closed) return;
    delivery.signature = stripeSignatureHeader(delivery.payload, secret, Math.floor(this.now() / 1000));
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await post(delivery.url, delivery.payload, { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': delivery.signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' });
    } catch (caught) {
      error = (caught as Error).message;
    }
    delivery.attempts.push({ at: this.now(), status, error });
    if (status !== null && status >= 200 && status < 300) {
      delivery.delivered = true;
      return;
    }
    const delay = retryDelaysMs[attempt];
    if (delay === undefined || this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, secret, attempt + 1);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/** One POST without a shared agent (nothing kept alive past the simulator); resolves with the status. */
function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(target, { method: 'POST', agent: false, timeout: attemptTimeoutMs, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer in ${attemptTimeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
