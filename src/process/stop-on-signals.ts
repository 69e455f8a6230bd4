// Long-running commands (serve, worker) stop gracefully on SIGTERM or SIGINT: log,
// run their own shutdown once, exit 0 when it completes and 1 when it fails. The returned
// function starts the same stop for another reason (a `serve --workers N` worker told to stop
// by its primary, or left without one).
import type { Logger } from '../observability/logger.js';

export function stopOnSignals(logger: Logger, shutdown: () => Promise<void>): (reason: string) => void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal: reason }, 'stopping');
    shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return stop;
}
