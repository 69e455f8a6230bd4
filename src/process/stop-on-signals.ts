// Long-running commands (serve, worker) stop gracefully on SIGTERM or SIGINT: log,
// run their own shutdown once, exit 0 when it completes and 1 when it fails.
import type { Logger } from '../observability/logger.js';

export function stopOnSignals(logger: Logger, shutdown: () => Promise<void>): void {
  const stop = (signal: string) => {
    logger.info({ signal }, 'stopping');
    shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
