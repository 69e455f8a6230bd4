// The cabinet's top-up (docs/payments.md): what may be paid and how, the account's payments,
// starting one (the browser then goes to the provider's page) and reading one on return (asked
// of the provider, so the page shows its real state even before the notification arrived).
import { z } from 'zod';
import { formatRub, parseRub } from '../../util/money.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { presentPayment } from '../../payments/present-payment.js';
import type { ServerServices } from '../../services.js';
import { validate } from '../../validation/zod-details.js';
import type { Context, Handler } from '../state.js';

// The cabinet's payment shape moved beside the payments (the operator's views reuse it).
export { presentPayment };

const createBody = z.strictObject({
  provider: z.string().min(1).max(20),
  amount_rub: z.string().regex(/^\d{1,9}(\.\d{1,4})?$/, 'expected an amount in RUB such as "500" or "500.50"'),
  locale: z.enum(['ru', 'en']).optional(),
});

function paymentServices(services: ServerServices) {
  if (!services.payments) throw new GatewayError('not_found', 'payments are not enabled on this gateway');
  return services.payments;
}

const accountOf = (ctx: Context) => ctx.state.apiKey!.accountId;

/** GET /cabinet/api/payments: the offer (providers, presets, bounds, bonus tiers) and the account's payments. */
export const listCabinetPayments: Handler = async (ctx, services) => {
  ctx.set('cache-control', 'no-store');
  if (!services.payments) {
    ctx.body = { object: 'list', enabled: false, providers: [], data: [] };
    return;
  }
  const { payments } = services.payments;
  const { config } = payments;
  ctx.body = {
    object: 'list',
    enabled: true,
    providers: [...payments.providers.values()].map((provider) => ({ name: provider.name, currency: provider.currency, rub_rate: provider.currency === 'rub' ? null : provider.rubRate })),
    min_rub: formatRub(config.minUnits),
    max_rub: formatRub(config.maxUnits),
    presets_rub: config.presetsUnits.map(formatRub),
    bonus_tiers: config.bonusTiers.map((tier) => ({ from_rub: formatRub(tier.fromUnits), percent: (Number(tier.basisPoints) / 100).toString() })),
    data: (await payments.listForAccount(accountOf(ctx))).map(presentPayment),
  };
};

/** POST /cabinet/api/payments {provider, amount_rub}: the payment and the provider's page to send the browser to. */
export const createCabinetPayment: Handler = async (ctx, services) => {
  const body = validate(createBody, ctx.request.body, 'body');
  const { payments } = paymentServices(services);
  const session = ctx.state.session!;
  const user = session.userId === null ? undefined : await services.users.users.find(session.userId);
  const payment = await payments.create(
    { accountId: accountOf(ctx), userId: session.userId, email: user?.email ?? null, locale: body.locale ?? (user?.locale === 'ru' ? 'ru' : 'en') },
    body.provider,
    parseRub(body.amount_rub),
  );
  ctx.status = 201;
  ctx.set('cache-control', 'no-store');
  ctx.body = { ...presentPayment(payment), confirmation_url: payment.confirmationUrl };
};

/** GET /cabinet/api/payments/:id: the payment as its provider has it now (asked when still pending). */
export const retrieveCabinetPayment: Handler = async (ctx, services) => {
  const { payments } = paymentServices(services);
  const found = await payments.find(String(ctx.params.id));
  if (!found || found.accountId !== accountOf(ctx)) throw new GatewayError('not_found', `no payment ${String(ctx.params.id)}`);
  const payment = await payments.refresh(found).catch((error: unknown) => {
    services.logger.warn({ err: error, payment_id: found.id }, 'a payment could not be checked with its provider; answered as stored');
    return found;
  });
  ctx.set('cache-control', 'no-store');
  ctx.body = { ...presentPayment(payment), confirmation_url: payment.status === 'pending' ? payment.confirmationUrl : null };
};
