// The payments' part of the periodic sweep of `serve` and `worker` (docs/payments.md,
// "Crashes"): pending payments and refunds asked of their provider again. Never throws: a
// failed round is logged and the next one tries again. Every instance may sweep: crediting
// and refunding are written once whoever gets there first.
import type { ServerServices } from '../services.js';

/** Payment services whose round is still running (a slow provider): the next tick skips them. */
const running = new WeakSet<object>();

export function sweepPayments(services: Pick<ServerServices, 'payments' | 'logger' | 'config'>): void {
  const { payments } = services;
  if (!payments || running.has(payments)) return;
  running.add(payments);
  Promise.all([payments.payments.sweep(), payments.refunds.sweep(services.config.payments!.sweepAfterMs)])
    .then(
      ([checked, refunds]) => {
        if (checked + refunds > 0) services.logger.info({ payments: checked, refunds }, 'pending payments and refunds checked with their providers');
      },
      (error: unknown) => services.logger.error({ err: error }, 'the payment sweep failed'),
    )
    .finally(() => {
      running.delete(payments);
    });
}
