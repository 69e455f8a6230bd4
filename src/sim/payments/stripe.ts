// The simulated Stripe (docs/payments.md, "Stripe"; src/sim/README.md), under /stripe/ of the
// simulator, on Stripe's own wire so the official `stripe` package talks to it unchanged:
//
// - The API under /stripe/v1/: form-encoded requests with bracket notation (stripe-form.ts),
//   `Authorization: Bearer sk_…` required, `Idempotency-Key` honoured (the same key and
//   parameters answer the first answer again; other parameters are refused), JSON answers and
//   Stripe's error shape. Checkout Sessions (create, retrieve, list, expire), PaymentIntents,
//   Charges and Refunds (stripe-shop.ts), webhook endpoints (stripe-webhook-endpoints.ts),
//   `expand[]` on every answer (stripe-expand.ts).
// - The hosted Checkout page at a session's `url`: /stripe/checkout/<session id>
//   (stripe-checkout-page.ts). Pay completes the session and sends checkout.session.completed
//   to every endpoint (stripe-webhooks.ts), then 303 to success_url; Cancel 303s to cancel_url
//   and leaves the session open. `?notify=none` on the page holds the event (signed, not sent).
// - GET /stripe/__sim/deliveries[?session=cs_…]: the simulator's record of the events it sent
//   or held, with their exact bodies and signatures (tests replay them). Not a Stripe endpoint.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PaymentSimRequest } from './routes.js';
import { checkoutPage } from './stripe-checkout-page.js';
import { noSuch, StripeSimError } from './stripe-errors.js';
import { decodeStripeForm, FormError, type FormObject } from './stripe-form.js';
import { StripeShop, type WireObject } from './stripe-shop.js';
import { WebhookEndpoints } from './stripe-webhook-endpoints.js';
import { WebhookSender } from './stripe-webhooks.js';

/** Larger than any request the simulated endpoints take. */
const maxBodyBytes = 1024 * 1024;
/** Idempotent answers kept (Stripe keeps them 24 hours; the simulator the newest this many). */
const keptIdempotentAnswers = 10_000;
/** The card number Stripe's test mode declines (generic_decline). */
const declinedCard = '4000000000000002';

interface IdempotentAnswer {
  readonly fingerprint: string;
  readonly status: number;
  readonly body: string;
}

type ApiHandler = (params: FormObject, context: { readonly id: string; readonly origin: string; readonly apiVersion: string | null }) => WireObject;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > maxBodyBytes) reject(new StripeSimError(413, 'invalid_request_error', `Request bodies are at most ${maxBodyBytes} bytes`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}`, 'cache-control': 'no-store', ...headers }).end(body);
}

export class StripeSimulator {
  private readonly endpoints = new WebhookEndpoints();
  private readonly webhooks = new WebhookSender(() => this.endpoints.values());
  private readonly shop: StripeShop;
  private readonly idempotentAnswers = new Map<string, IdempotentAnswer>();
  /** METHOD path-pattern → handler; `:id` is the one path parameter. */
  private readonly routes: ReadonlyMap<string, ApiHandler>;

  constructor() {
    this.shop = new StripeShop((event, options) => this.webhooks.publish(event, options));
    const { shop, endpoints } = this;
    this.routes = new Map<string, ApiHandler>([
      ['POST /v1/checkout/sessions', (params, { origin }) => shop.createSession(params, origin)],
      ['GET /v1/checkout/sessions', (params) => shop.listSessions(params)],
      ['GET /v1/checkout/sessions/:id', (_params, { id }) => shop.retrieveSession(id)],
      ['POST /v1/checkout/sessions/:id/expire', (_params, { id }) => shop.expireSession(id)],
      ['GET /v1/payment_intents/:id', (_params, { id }) => shop.retrievePaymentIntent(id)],
      ['GET /v1/charges/:id', (_params, { id }) => shop.retrieveCharge(id)],
      ['POST /v1/refunds', (params) => shop.createRefund(params)],
      ['GET /v1/refunds', (params) => shop.listRefunds(params)],
      ['GET /v1/refunds/:id', (_params, { id }) => shop.retrieveRefund(id)],
      ['POST /v1/webhook_endpoints', (params, { apiVersion }) => endpoints.create(params, apiVersion)],
      ['GET /v1/webhook_endpoints', (params) => endpoints.list(params)],
      ['GET /v1/webhook_endpoints/:id', (_params, { id }) => endpoints.retrieve(id)],
      ['DELETE /v1/webhook_endpoints/:id', (_params, { id }) => endpoints.delete(id)],
    ]);
  }

  async handle({ request, response, path, query, origin }: PaymentSimRequest): Promise<void> {
    try {
      if (path.startsWith('/checkout/')) return await this.checkout(request, response, decodeURIComponent(path.slice('/checkout/'.length)), query);
      if (path === '/__sim/deliveries' && request.method === 'GET') {
        this.authenticate(request);
        return sendJson(response, 200, JSON.stringify({ object: 'list', data: this.webhooks.list(query.get('session') ?? undefined) }));
      }
      if (path.startsWith('/v1/')) return await this.api(request, response, path, query, origin);
      throw new StripeSimError(404, 'invalid_request_error', `Unrecognized request URL (${request.method}: ${path}).`);
    } catch (caught) {
      const error =
        caught instanceof StripeSimError
          ? caught
          : caught instanceof FormError
            ? new StripeSimError(400, 'invalid_request_error', caught.message, 'parameter_invalid', caught.param)
            : new StripeSimError(500, 'api_error', `simulator failure: ${(caught as Error)?.message ?? String(caught)}`);
      if (response.headersSent) response.destroy();
      else sendJson(response, error.status, JSON.stringify(error.body, null, 2));
    }
  }

  /** The API: authentication, parameters, idempotency, the handler, expansion. */
  private async api(request: IncomingMessage, response: ServerResponse, path: string, query: URLSearchParams, origin: string): Promise<void> {
    this.authenticate(request);
    const method = request.method ?? 'GET';
    const { handler, id } = this.route(method, path);
    const raw = method === 'POST' ? await readBody(request) : '';
    const params = method === 'POST' ? decodeStripeForm(raw) : decodeStripeForm(query);
    const key = header(request, 'idempotency-key');
    const fingerprint = createHash('sha256').update(`${method} ${path}\n${raw}`).digest('hex');
    if (method === 'POST' && key !== undefined) {
      const earlier = this.idempotentAnswers.get(key);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint) {
          throw new StripeSimError(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`);
        }
        return sendJson(response, earlier.status, earlier.body, { 'idempotency-key': key, 'idempotent-replayed': 'true' });
      }
    }
    const expand = params.expand;
    delete params.expand;
    if (expand !== undefined && (!Array.isArray(expand) || !expand.every((path) => typeof path === 'string'))) throw new StripeSimError(400, 'invalid_request_error', 'Invalid array: expand', 'parameter_invalid', 'expand');
    const answer = handler(params, { id, origin, apiVersion: header(request, 'stripe-version') ?? null });
    const body = JSON.stringify(expand ? this.shop.expand(answer, expand as string[]) : answer, null, 2);
    if (method === 'POST' && key !== undefined) {
      // Only what executed is kept, as Stripe keeps it: a refused parameter is not an answer to replay.
      this.idempotentAnswers.set(key, { fingerprint, status: 200, body });
      if (this.idempotentAnswers.size > keptIdempotentAnswers) this.idempotentAnswers.delete(this.idempotentAnswers.keys().next().value!);
    }
    sendJson(response, 200, body, key === undefined ? {} : { 'idempotency-key': key });
  }

  private route(method: string, path: string): { handler: ApiHandler; id: string } {
    const exact = this.routes.get(`${method} ${path}`);
    if (exact) return { handler: exact, id: '' };
    const segments = path.split('/');
    for (const [pattern, handler] of this.routes) {
      const [patternMethod, patternPath] = pattern.split(' ') as [string, string];
      const patternSegments = patternPath.split('/');
      if (patternMethod !== method || patternSegments.length !== segments.length || !patternPath.includes(':id')) continue;
      let id = '';
      const matches = patternSegments.every((segment, index) => {
        if (segment !== ':id') return segment === segments[index];
        id = decodeURIComponent(segments[index]!);
        return id.length > 0;
      });
      if (matches) return { handler, id };
    }
    throw new StripeSimError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  /** A secret key, as Stripe requires one: `Authorization: Bearer sk_…` (any such key: one simulated account). */
  private authenticate(request: IncomingMessage): void {
    const authorization = header(request, 'authorization');
    if (!authorization) throw new StripeSimError(401, 'invalid_request_error', 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\').');
    const key = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    if (!key || !/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(key)) throw new StripeSimError(401, 'invalid_request_error', `Invalid API Key provided: ${(key ?? '').slice(0, 8)}****`, 'api_key_invalid');
  }

  /** The hosted Checkout page: GET shows it, POST pays or cancels. */
  private async checkout(request: IncomingMessage, response: ServerResponse, sessionId: string, query: URLSearchParams): Promise<void> {
    const view = this.shop.checkoutView(sessionId);
    if (!view) throw noSuch('checkout.session', sessionId, 'session');
    const notify = query.get('notify');
    const pageQuery = notify === 'none' ? 'notify=none' : '';
    const page = (status: number, error?: 'declined') =>
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(checkoutPage({ sessionId, ...view, query: pageQuery, error }));
    if (request.method === 'GET' || request.method === 'HEAD') return void page(200);
    if (request.method !== 'POST') throw new StripeSimError(405, 'invalid_request_error', 'The checkout page takes GET and POST');
    const form = new URLSearchParams(await readBody(request));
    const action = form.get('action');
    if (action === 'cancel') {
      const cancelUrl = this.shop.cancelUrl(sessionId);
      if (cancelUrl === null) return void page(200);
      return void response.writeHead(303, { location: cancelUrl }).end();
    }
    if (action !== 'pay') throw new StripeSimError(400, 'invalid_request_error', 'action must be pay or cancel', 'parameter_invalid', 'action');
    if (view.status === 'expired') return void page(200); // the page says so
    if (view.status === 'open' && (form.get('card') ?? '').replace(/\D/g, '') === declinedCard) return void page(402, 'declined');
    // A paid session sends the browser on again, and nothing more happens.
    const { successUrl } = this.shop.pay(sessionId, { hold: notify === 'none' });
    response.writeHead(303, { location: successUrl }).end();
  }

  close(): void {
    this.webhooks.close();
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
