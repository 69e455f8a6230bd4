// A charge given back because the gateway could not deliver what it paid for (docs/bot.md,
// "Nothing charged for what did not arrive"): a `refund` ledger row through the ledger's
// correction path (one refund per charge), named by the request id or the job id.
import { Corrections } from '../billing/corrections.js';
import type { ServerServices } from '../services.js';

export async function refundUndelivered(services: ServerServices, accountId: string, reference: string): Promise<void> {
  try {
    await new Corrections(services.db, services.ledger, services.now).refund({ reference, accountId, reason: 'the bot could not deliver the result', actor: 'bot' });
  } catch (error) {
    services.logger.error({ err: error, reference }, "an undelivered bot result's charge could not be refunded");
  }
}
