// PLACEHOLDER for the Stripe slice: replaced by the adapter (docs/payments.md, "Stripe").
import type { StripeConfig } from '../../config/load.js';
import type { Logger } from '../../observability/logger.js';
import type { PaymentProvider } from '../provider.js';

export async function openStripe(_config: StripeConfig, _context: { apiUrl: string; simulated: boolean; logger: Logger; now: () => number }): Promise<PaymentProvider> {
  throw new Error('the Stripe adapter is not built yet');
}
