// The simulated YooKassa (docs/payments.md, "Simulator"), on YooKassa's own wire under
// /yookassa/v3/ (the gateway's api_url for `sim`): payments (create with an Idempotence-Key,
// get, list, capture, cancel), refunds (create, get) and the webhooks API the gateway
// subscribes to notifications with. The hosted page is /yookassa/checkout/<payment id>: a
// browser pays or cancels there and is sent back to the payment's return_url, and the shop's
// notifications go out (yookassa/notifier.ts).
//
// Fault switches for tests, per payment: `?notify=none|twice` on the checkout page (kept by its
// form), or `sim_notify` in the payment's metadata; `?reason=…` names a cancel's reason.
// Every API call needs HTTP Basic credentials (any shop id and key: it is not a vault).
import type { IncomingMessage } from 'node:http';
import type { PaymentSimRequest } from './routes.js';
import { checkoutPage, missingPage } from './yookassa/checkout-page.js';
import { Notifier } from './yookassa/notifier.js';
import { invalidRequest, notifyModes, YookassaShop, YookassaSimError, type NotifyMode } from './yookassa/shop.js';

/** The largest request body the simulated API reads (YooKassa's requests are a few KB). */
const maxBodyBytes = 1024 * 1024;

/** The reasons a cancel on the hosted page may give (?reason=), as YooKassa names them. */
const cancelReasons = new Set(['expired_on_confirmation', 'insufficient_funds', 'card_expired', 'payment_method_restricted', 'rejected_by_payee', '3d_secure_failed', 'general_decline']);

export class YookassaSimulator {
  private readonly shop = new YookassaShop();
  private readonly notifier = new Notifier();

  async handle(call: PaymentSimRequest): Promise<void> {
    try {
      if (call.path.startsWith('/checkout/')) return await this.checkout(call, decoded(call.path.slice('/checkout/'.length)));
      if (!call.path.startsWith('/v3/')) throw new YookassaSimError(404, 'not_found', `no such path: ${call.path}`);
      if (!hasBasicCredentials(call.request)) throw new YookassaSimError(401, 'invalid_credentials', 'Authentication by given credentials failed: HTTP Basic with the shop id and the secret key is required');
      await this.api(call, call.path.slice('/v3'.length));
    } catch (error) {
      const refusal = error instanceof YookassaSimError ? error : new YookassaSimError(500, 'internal_server_error', `simulator failure: ${(error as Error)?.message ?? String(error)}`);
      if (call.response.headersSent) {
        call.response.destroy();
        return;
      }
      sendJson(call, refusal.status, refusal.body());
    }
  }

  private async api(call: PaymentSimRequest, path: string): Promise<void> {
    const method = call.request.method ?? 'GET';
    const key = headerOf(call.request, 'idempotence-key');
    const checkoutUrl = (id: string) => `${call.origin}/yookassa/checkout/${id}`;
    const segments = path.split('/').filter(Boolean).map(decoded);
    const [collection, id, action] = segments;
    const route = `${method} /${collection ?? ''}${id === undefined ? '' : '/{id}'}${action === undefined ? '' : `/${action}`}`;
    switch (route) {
      case 'POST /payments': {
        const payment = this.shop.createPayment(await readJson(call.request), key);
        return sendJson(call, 200, this.shop.paymentJson(payment, checkoutUrl(payment.id)));
      }
      case 'GET /payments': {
        const { items, nextCursor } = this.shop.listPayments(call.query);
        return sendJson(call, 200, { type: 'list', items: items.map((payment) => this.shop.paymentJson(payment, checkoutUrl(payment.id))), ...(nextCursor ? { next_cursor: nextCursor } : {}) });
      }
      case 'GET /payments/{id}':
        return sendJson(call, 200, this.shop.paymentJson(this.shop.payment(id!), checkoutUrl(id!)));
      case 'POST /payments/{id}/capture':
      case 'POST /payments/{id}/cancel': {
        const body = await readJson(call.request, true);
        const { payment, events } = action === 'capture' ? this.shop.capture(id!, body, key) : this.shop.cancelByMerchant(id!, key);
        this.notifier.send(events, (event) => this.shop.subscribers(event));
        return sendJson(call, 200, this.shop.paymentJson(payment, undefined));
      }
      case 'POST /refunds': {
        const { refund, events } = this.shop.createRefund(await readJson(call.request), key);
        this.notifier.send(events, (event) => this.shop.subscribers(event));
        return sendJson(call, 200, this.shop.refundJson(refund));
      }
      case 'GET /refunds/{id}':
        return sendJson(call, 200, this.shop.refundJson(this.shop.refund(id!)));
      case 'POST /webhooks':
        return sendJson(call, 200, this.shop.addWebhook(await readJson(call.request), key));
      case 'GET /webhooks':
        return sendJson(call, 200, { type: 'list', items: this.shop.listWebhooks() });
      case 'DELETE /webhooks/{id}':
        this.shop.removeWebhook(id!);
        return sendJson(call, 200, {});
      default:
        throw new YookassaSimError(404, 'not_found', `no such method: ${method} /v3${path}`);
    }
  }

  /** GET: the hosted page. POST (its form): pay or cancel, notify, then back to the shop (303). */
  private async checkout(call: PaymentSimRequest, paymentId: string): Promise<void> {
    const { request, response, query } = call;
    let payment;
    try {
      payment = this.shop.payment(paymentId);
    } catch {
      sendHtml(call, 404, missingPage());
      return;
    }
    const queryString = query.toString();
    const formAction = `/yookassa/checkout/${encodeURIComponent(payment.id)}${queryString ? `?${queryString}` : ''}`;
    if (request.method === 'GET' || request.method === 'HEAD') return sendHtml(call, 200, checkoutPage(payment, 'Gateway (simulated shop)', formAction));
    if (request.method !== 'POST') throw new YookassaSimError(405, 'invalid_request', 'the checkout page takes GET and POST');
    const form = new URLSearchParams((await readBody(request)).toString('utf8'));
    const notifyText = query.get('notify');
    if (notifyText !== null && !notifyModes.includes(notifyText as NotifyMode)) throw invalidRequest(`notify must be one of: ${notifyModes.join(', ')}`, 'notify');
    const notify = (notifyText as NotifyMode | null) ?? this.shop.notifyOf(payment);
    const reason = query.get('reason') ?? undefined;
    if (reason !== undefined && !cancelReasons.has(reason)) throw invalidRequest(`reason must be one of: ${[...cancelReasons].join(', ')}`, 'reason');
    const action = form.get('action');
    if (action !== 'pay' && action !== 'cancel') throw invalidRequest('action must be pay or cancel', 'action');
    const events = action === 'pay' ? this.shop.pay(payment.id, notify) : this.shop.cancel(payment.id, notify, reason);
    this.notifier.send(events, (event) => this.shop.subscribers(event));
    response.writeHead(303, { location: payment.returnUrl, 'content-length': '0', 'cache-control': 'no-store' }).end();
  }

  close(): void {
    this.notifier.close();
  }
}

/** A path segment decoded; a malformed escape is the client's mistake (400), not the simulator's. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidRequest(`malformed path segment: ${segment}`);
  }
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `Authorization: Basic base64(shop_id:secret_key)`, both parts non-empty. */
function hasBasicCredentials(request: IncomingMessage): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(headerOf(request, 'authorization') ?? '');
  if (!match) return false;
  const [shopId, ...secret] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return Boolean(shopId) && secret.join(':').length > 0;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(invalidRequest(`the request body is larger than ${maxBodyBytes} bytes`));
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** The JSON body; `optional`: an empty body reads as undefined (capture and cancel may have none). */
async function readJson(request: IncomingMessage, optional = false): Promise<unknown> {
  const raw = await readBody(request);
  if (optional && raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidRequest('the request body is not valid JSON');
  }
}

function sendJson(call: PaymentSimRequest, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  call.response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) }).end(text);
}

function sendHtml(call: PaymentSimRequest, status: number, html: string): void {
  call.response
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(html)), 'cache-control': 'no-store' })
    .end(call.request.method === 'HEAD' ? undefined : html);
}
