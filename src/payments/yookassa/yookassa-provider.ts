// PLACEHOLDER for the YooKassa slice: replaced by the adapter (docs/payments.md, "YooKassa").
import type { YookassaConfig } from '../../config/load.js';
import type { Logger } from '../../observability/logger.js';
import type { PaymentProvider } from '../provider.js';

export function openYookassa(_config: YookassaConfig, _context: { apiUrl: string; simulated: boolean; logger: Logger; now: () => number }): PaymentProvider {
  throw new Error('the YooKassa adapter is not built yet');
}
