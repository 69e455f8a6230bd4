// The payment providers the simulator plays (docs/payments.md, "Simulator"): YooKassa under
// /yookassa/ and Stripe under /stripe/, each on its own wire: the payment API, a hosted page a
// browser can pay or cancel on, and notifications sent to the gateway. State lives in the
// simulator instance (one shop per simulator) and is lost when it stops.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StripeSimulator } from './stripe.js';
import { YookassaSimulator } from './yookassa.js';

export interface PaymentSimRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The path after the provider's prefix: `/v3/payments` for /yookassa/v3/payments. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The simulator's own base address (http://127.0.0.1:PORT), for the hosted pages' links. */
  readonly origin: string;
}

export class PaymentSimulators {
  private readonly yookassa = new YookassaSimulator();
  private readonly stripe = new StripeSimulator();

  /** True when the path was a payment provider's (answered); false leaves it to the other routes. */
  async handle(request: IncomingMessage, response: ServerResponse, path: string, queryString: string, origin: string): Promise<boolean> {
    const query = new URLSearchParams(queryString);
    if (path.startsWith('/yookassa/')) {
      await this.yookassa.handle({ request, response, path: path.slice('/yookassa'.length), query, origin });
      return true;
    }
    if (path.startsWith('/stripe/')) {
      await this.stripe.handle({ request, response, path: path.slice('/stripe'.length), query, origin });
      return true;
    }
    return false;
  }

  close(): void {
    this.yookassa.close();
    this.stripe.close();
  }
}
