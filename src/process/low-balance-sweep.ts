// The low-balance check of `serve` and `worker` (docs/payments.md, "Low balance"), every
// low_balance.check_interval, off the request path. Never throws: a failed round is logged and
// the next one tries again. Every instance may check: a notice is claimed by one conditional
// UPDATE (src/payments/low-balance.ts), so each fall is notified once.
import { LowBalanceNotices } from '../payments/low-balance.js';
import type { ServerServices } from '../services.js';

type Needs = Pick<ServerServices, 'db' | 'users' | 'logger' | 'config' | 'cabinet' | 'now'>;

/** The notices over a process's services (made per round: it holds nothing open). */
export function lowBalanceNotices(services: Needs): LowBalanceNotices {
  return new LowBalanceNotices({
    db: services.db,
    mailer: services.users.mailer,
    logger: services.logger,
    defaultThresholdUnits: services.config.lowBalance.defaultThresholdUnits,
    publicUrl: services.cabinet.settings.publicUrl,
    now: services.now,
  });
}

/** Services whose round is still running (a slow SMTP server): the next tick skips them. */
const running = new WeakSet<object>();

export function sweepLowBalance(services: Needs): void {
  if (running.has(services.db)) return;
  running.add(services.db);
  lowBalanceNotices(services)
    .check()
    .then(
      ({ notified }) => {
        if (notified > 0) services.logger.info({ notified }, 'low-balance notices sent');
      },
      (error: unknown) => services.logger.error({ err: error }, 'the low-balance check failed'),
    )
    .finally(() => {
      running.delete(services.db);
    });
}

/** The check's timer for a long-running process (unref'd: it never keeps one alive). */
export function startLowBalanceChecks(services: Needs): NodeJS.Timeout {
  const timer = setInterval(() => sweepLowBalance(services), services.config.lowBalance.checkIntervalMs);
  timer.unref();
  return timer;
}
