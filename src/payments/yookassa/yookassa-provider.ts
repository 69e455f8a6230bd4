// YooKassa (docs/payments.md, "YooKassa"): payments in RUB through YooKassa's hosted page, with
// the 54-FZ receipt. The wire is in yookassa-wire.ts, its translation in yookassa-codec.ts,
// the HTTP in yookassa-client.ts; this file is the PaymentProvider the money rules use.
//
// YooKassa does not sign its notifications. So a notification only names a payment, which
// payments.ts then reads from the API before anything is credited; and, when the operator
// lists YooKassa's address ranges (notification_addresses), a peer outside them is refused.
import { createHash } from 'node:crypto';
import type { YookassaConfig } from '../../config/load.js';
import type { Logger } from '../../observability/logger.js';
import { blockListOf, listed, normalizedAddress } from '../../util/ip-list.js';
import { NotificationRefusedError, type PaymentProvider, type ProviderPayment } from '../provider.js';
import { minorOfValue, notifiedPaymentId, paymentRequestOf, providerPaymentOf, providerRefundOf, refundRequestOf } from './yookassa-codec.js';
import { YookassaClient } from './yookassa-client.js';
import { notificationEvents, wirePayment, wirePaymentList, wireRefund, wireWebhook } from './yookassa-wire.js';

export interface YookassaContext {
  /** The API base (…/v3), the simulator's when api_url is sim. */
  readonly apiUrl: string;
  /** api_url is sim: the simulator is told where notifications go (a real shop's URL is entered in its dashboard). */
  readonly simulated: boolean;
  readonly logger: Logger;
  readonly now: () => number;
}

/** The simulator takes any key; a real shop's comes from the environment (secret_key_env). */
const simulatorSecret = 'sim_secret_key';

/** A list page's size: YooKassa's largest. */
const pageSize = 100;

export function openYookassa(config: YookassaConfig, context: YookassaContext): PaymentProvider {
  const client = new YookassaClient({
    apiUrl: context.apiUrl,
    shopId: config.shopId,
    secretKey: () => {
      if (config.secretKey !== undefined) return config.secretKey;
      if (context.simulated) return simulatorSecret;
      throw new Error(`payments.yookassa.secret_key_env names ${config.secretKeyEnv}, which is not set in this process's environment`);
    },
  });
  const allowedPeers = config.notificationAddresses && blockListOf(config.notificationAddresses);
  const getPayment = async (id: string) => providerPaymentOf(await client.get(`/payments/${encodeURIComponent(id)}`, wirePayment));

  return {
    name: 'yookassa',
    currency: 'rub',
    rubRate: '1',

    async create(payment) {
      const created = await client.post('/payments', paymentRequestOf(payment, config.vatCode), payment.reference, wirePayment);
      // A payment already paid or canceled (the same key asked again) has no page any more: the browser goes back to ours.
      return { payment: providerPaymentOf(created), confirmationUrl: created.confirmation?.confirmation_url ?? payment.returnUrl };
    },

    fetch: getPayment,

    async refund({ providerPaymentId, amountMinor, currency, idempotenceKey, email }) {
      // A partial refund of a payment that had a receipt carries the refund receipt's item; a whole one reuses the payment's.
      let receipt: Parameters<typeof refundRequestOf>[3];
      const paid = await client.get(`/payments/${encodeURIComponent(providerPaymentId)}`, wirePayment);
      if (paid.receipt_registration !== undefined && amountMinor !== minorOfValue(paid.amount.value)) {
        if (!email) throw new Error(`a partial refund of YooKassa payment ${providerPaymentId} needs a refund receipt, and the payment has no customer email`);
        receipt = { email, description: paid.description ?? 'Пополнение баланса', vatCode: config.vatCode };
      }
      return providerRefundOf(await client.post('/refunds', refundRequestOf(providerPaymentId, amountMinor, currency, receipt), idempotenceKey, wireRefund));
    },

    async fetchRefund(refundId) {
      return providerRefundOf(await client.get(`/refunds/${encodeURIComponent(refundId)}`, wireRefund));
    },

    async *list(sinceMs): AsyncIterable<ProviderPayment> {
      let cursor: string | undefined;
      do {
        const query = new URLSearchParams({ 'created_at.gte': new Date(sinceMs).toISOString(), limit: String(pageSize) });
        if (cursor) query.set('cursor', cursor);
        const page = await client.get(`/payments?${query}`, wirePaymentList);
        for (const item of page.items) yield providerPaymentOf(item);
        cursor = page.next_cursor || undefined;
      } while (cursor);
    },

    async readNotification(request) {
      if (allowedPeers) {
        const peer = request.remoteAddress && normalizedAddress(request.remoteAddress);
        if (!peer || !listed(allowedPeers, peer)) throw new NotificationRefusedError(`a YooKassa notification from ${peer ?? 'an unknown address'}, outside payments.yookassa.notification_addresses`);
      }
      const id = notifiedPaymentId(request.rawBody);
      return id === null ? null : { providerPaymentId: id };
    },

    async start(notificationUrl) {
      if (!context.simulated) return; // a real shop's notification URL is entered in the YooKassa dashboard
      // The simulator is a shop of its own: its notifications are subscribed to through YooKassa's webhooks API.
      for (const event of notificationEvents.filter((name) => name !== 'payment.waiting_for_capture')) {
        // The key's limit is 64 characters: a hash of the subscription, so asking again is the same one.
        const key = createHash('sha256').update(`${event} ${notificationUrl}`).digest('hex').slice(0, 40);
        await client.post('/webhooks', { event, url: notificationUrl }, key, wireWebhook);
      }
      context.logger.debug({ url: notificationUrl }, 'the simulated YooKassa shop notifies this process');
    },

    close: () => client.close(),
  };
}
