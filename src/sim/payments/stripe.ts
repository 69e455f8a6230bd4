// PLACEHOLDER for the Stripe slice: the simulated Stripe API, Checkout page and signed webhooks.
import type { PaymentSimRequest } from './routes.js';

export class StripeSimulator {
  async handle(request: PaymentSimRequest): Promise<void> {
    request.response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'not simulated yet' } }));
  }

  close(): void {}
}
