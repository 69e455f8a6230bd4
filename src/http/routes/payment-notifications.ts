// POST /payments/:provider/notifications: where YooKassa and Stripe send their notifications
// (the URL the operator enters at the provider; docs/payments.md). Public: the provider's
// adapter checks what its provider lets it check (Stripe's signature, YooKassa's address
// ranges), then the payment is read from the provider's API and credited once. The body is
// read raw (Stripe signs the exact bytes) and bounded.
import { GatewayError } from '../../errors/gateway-error.js';
import { NotificationRefusedError } from '../../payments/provider.js';
import type { Handler } from '../state.js';

/** Larger than any notification either provider sends. */
const maxNotificationBytes = 256 * 1024;

async function readRawBody(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxNotificationBytes) throw new GatewayError('request_too_large', `a notification is at most ${maxNotificationBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export const paymentNotification: Handler = async (ctx, services) => {
  const payments = services.payments?.payments;
  const provider = payments?.providers.get(String(ctx.params.provider));
  if (!payments || !provider) throw new GatewayError('not_found', `no payment provider "${String(ctx.params.provider)}" is configured here`);
  const rawBody = await readRawBody(ctx.req);
  let notice;
  try {
    notice = await provider.readNotification({ headers: ctx.req.headers, rawBody, remoteAddress: ctx.clientAddresses.of(ctx.req) });
  } catch (error) {
    if (error instanceof NotificationRefusedError) {
      services.logger.warn({ provider: provider.name, reason: error.message }, 'a payment notification was refused');
      throw new GatewayError('notification_refused', error.message);
    }
    throw error;
  }
  if (notice) await payments.confirm(provider.name, notice.providerPaymentId);
  ctx.body = { received: true };
};
