// A worker process's own part (`gateway worker`): the job runner without the HTTP API. It also
// registers as a live hold owner (it beats, and sweeps the request holds of serving processes
// that died) and releases expired holds, so a worker-only host recovers crashed requests too;
// with them it removes ended cabinet login links and sessions, sweeps pending payments and checks
// for low balances.
import { createJobRunner } from '../pipeline/job-runner.js';
import { sweepCabinet } from './cabinet-sweep.js';
import { sweepPayments } from './payment-sweep.js';
import { startLowBalanceChecks } from './low-balance-sweep.js';
import type { ServerServices } from '../services.js';

export interface RunningWorker {
  /** The runner's lease owner id. */
  readonly owner: string;
  /** Stops the runner (its steps store their state, or are stopped at server.drain_timeout), the heartbeat, then closes the services. */
  stop(): Promise<void>;
}

export async function startWorker(services: ServerServices): Promise<RunningWorker> {
  // Registered first: a worker refused beside instances on other machines (src/storage/shared-storage.ts) starts nothing.
  await services.holdOwner.register();
  const runner = createJobRunner(services);
  runner.start();
  services.holdOwner.start();
  services.usageRecords.start();
  const sweeper = setInterval(() => {
    services.ledger.releaseExpired().catch((error: unknown) => services.logger.error({ err: error }, 'hold sweeper failed'));
    sweepCabinet(services);
    sweepPayments(services);
  }, services.config.holds.sweepIntervalMs);
  const lowBalanceChecks = startLowBalanceChecks(services);
  return {
    owner: runner.owner,
    async stop() {
      clearInterval(sweeper);
      clearInterval(lowBalanceChecks);
      await runner.stop({ deadlineMs: services.config.server.drainTimeoutMs });
      await services.holdOwner.stop({ forget: true });
      await services.close();
    },
  };
}
