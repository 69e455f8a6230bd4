// The payment providers a command needs (`payments refund`, `reconcile payments`), opened from the
// configuration as `serve` opens them, with the same money rules and hooks (a refund takes a
// referrer's share back as it does in the console), and closed with the command.
//
// `api_url: sim` cannot be used here: that simulator lives inside each serving process, on a
// port of its own, with the payments it has seen; a command starting another would find none of
// them. Pointing api_url at a `gateway simulate` server (http://HOST:PORT/yookassa/v3, /stripe)
// serves every process alike, commands included.
import { GatewayError } from '../errors/gateway-error.js';
import { missingPaymentSecrets, openPayments, type PaymentServices } from '../payments/open-payments.js';
import { referralHooks } from '../referrals/referral-hooks.js';
import type { Services } from '../services.js';

/** Why this command cannot use the configured providers; empty when it can. */
export function paymentProvidersUnusable(config: Services['config']): string[] {
  const settings = config.payments;
  if (!settings || (!settings.yookassa && !settings.stripe)) return ['no payment provider is configured (the `payments` section with `yookassa` or `stripe`; docs/payments.md)'];
  const problems: string[] = [];
  for (const [name, section] of [['yookassa', settings.yookassa], ['stripe', settings.stripe]] as const) {
    if (section?.apiUrl === 'sim') {
      problems.push(
        `payments.${name}.api_url is sim: that simulator lives inside each serving process, out of this command's reach. Refund in the console or the admin API, or point api_url at a \`gateway simulate\` server (http://HOST:PORT/${name === 'yookassa' ? 'yookassa/v3' : 'stripe'})`,
      );
    }
  }
  return [...problems, ...missingPaymentSecrets(config)];
}

/** The configured providers with the payment services over them; the caller closes them (`payments.close()`). */
export async function openCommandPayments(services: Services): Promise<PaymentServices> {
  const problems = paymentProvidersUnusable(services.config);
  if (problems.length > 0) throw new GatewayError('payment_provider_unavailable', `this command cannot reach the payment providers: ${problems.join('; ')}`);
  const { config, db, ledger, logger, now } = services;
  const opened = await openPayments(config, { db, ledger, logger, now, simulatorUrl: undefined, hooks: referralHooks(db, ledger, config.referral, logger, now) });
  if (!opened) throw new Error('payments names no provider'); // excluded above
  return opened;
}
