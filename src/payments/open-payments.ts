// Opens the payment providers the configuration names, and only those: each adapter (and the
// `stripe` package behind Stripe's) is imported when configured, not at every start.
import type { Knex } from 'knex';
import type { Ledger } from '../billing/ledger.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../observability/logger.js';
import { PaymentRefunds } from './payment-refunds.js';
import { Payments, type PaymentHooks } from './payments.js';
import type { PaymentProvider } from './provider.js';

export interface PaymentServices {
  readonly payments: Payments;
  readonly refunds: PaymentRefunds;
}

/** Do the payment providers need the built-in simulator (`api_url: sim`)? */
export function paymentsNeedSimulator(config: Config): boolean {
  return config.payments?.yookassa?.apiUrl === 'sim' || config.payments?.stripe?.apiUrl === 'sim';
}

/** Why `serve` must not start: a provider whose secrets are not in the environment (the simulator needs none). */
export function missingPaymentSecrets(config: Config): string[] {
  const problems: string[] = [];
  const { yookassa, stripe } = config.payments ?? {};
  const unset = (section: string, field: string, variable: string) =>
    `payments.${section}.${field} names ${variable}, which is not set in this process's environment: set it (docs/payments.md), or remove payments.${section}`;
  if (yookassa && yookassa.apiUrl !== 'sim' && yookassa.secretKey === undefined) problems.push(unset('yookassa', 'secret_key_env', yookassa.secretKeyEnv));
  if (stripe && stripe.apiUrl !== 'sim') {
    if (stripe.secretKey === undefined) problems.push(unset('stripe', 'secret_key_env', stripe.secretKeyEnv));
    if (stripe.webhookSecret === undefined) problems.push(unset('stripe', 'webhook_secret_env', stripe.webhookSecretEnv));
  }
  return problems;
}

export async function openPayments(
  config: Config,
  context: { db: Knex; ledger: Ledger; logger: Logger; now: () => number; simulatorUrl: string | undefined; hooks?: PaymentHooks },
): Promise<PaymentServices | undefined> {
  const settings = config.payments;
  if (!settings || (!settings.yookassa && !settings.stripe)) return undefined;
  const providers = new Map<string, PaymentProvider>();
  const simulatorUrl = (apiUrl: string, path: string) => {
    if (apiUrl !== 'sim') return apiUrl;
    if (!context.simulatorUrl) throw new Error('api_url is sim but no simulator runs in this process');
    return `${context.simulatorUrl}${path}`;
  };
  if (settings.yookassa) {
    const { openYookassa } = await import('./yookassa/yookassa-provider.js');
    providers.set('yookassa', openYookassa(settings.yookassa, { apiUrl: simulatorUrl(settings.yookassa.apiUrl, '/yookassa/v3'), simulated: settings.yookassa.apiUrl === 'sim', logger: context.logger, now: context.now }));
  }
  if (settings.stripe) {
    const { openStripe } = await import('./stripe/stripe-provider.js');
    providers.set('stripe', await openStripe(settings.stripe, { apiUrl: simulatorUrl(settings.stripe.apiUrl, '/stripe'), simulated: settings.stripe.apiUrl === 'sim', logger: context.logger, now: context.now }));
  }
  const publicUrl = { publicUrl: config.cabinet.publicUrl, publicUrlConfigured: config.cabinet.publicUrlConfigured };
  const payments = new Payments(context.db, context.ledger, settings, providers, context.logger, context.now, publicUrl, context.hooks);
  return { payments, refunds: new PaymentRefunds(context.db, context.ledger, payments, context.logger, context.now, context.hooks) };
}
