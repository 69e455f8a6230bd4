// PLACEHOLDER for the YooKassa slice: the simulated YooKassa API, hosted page and notifications.
import type { PaymentSimRequest } from './routes.js';

export class YookassaSimulator {
  async handle(request: PaymentSimRequest): Promise<void> {
    request.response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', code: 'not_found', description: 'not simulated yet' }));
  }

  close(): void {}
}
