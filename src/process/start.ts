// The start-up every long-running command shares (serve, worker): the catalog is checked, the
// log goes where --json leaves room for it, the heap is bounded, the server services are opened
// and the schema migrated; then the command's own part starts, one line announces it (JSON on
// stdout with --json, text on stderr otherwise) and SIGTERM/SIGINT stop it gracefully.
// A failure before the announcement closes what was opened and reaches the caller, which
// renders it like any command's error.
import { checkCatalog } from '../catalog/check.js';
import { ConfigError, type Config } from '../config/load.js';
import { createLogger } from '../observability/logger.js';
import { openServerServices, type ServerServices } from '../services.js';
import { allowYoungGenerationGrowth, limitHeapGrowth } from '../util/heap-growth.js';
import type { ClusterClient } from './cluster-state.js';
import { stopOnSignals } from './stop-on-signals.js';

/** What a long-running process started: how it announces itself, and how it stops. */
export interface StartedProcess {
  /** The one stdout line with --json (e.g. {url, pid}), for whoever started the process. */
  readonly json: Record<string, unknown>;
  /** The one stderr line without --json. */
  readonly text: string;
  /** Graceful stop, run once on the first SIGTERM or SIGINT; the process exits 0 when it resolves, 1 when it rejects. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly json: boolean;
  /** Process-level metrics (event loop, memory) on /metrics: only a process that serves them. */
  readonly processMetrics?: boolean;
  /** A worker of `serve --workers N` (src/process/cluster-worker.ts): its shared state, its announcement and its stop go through the primary. */
  readonly clusterWorker?: {
    readonly state: ClusterClient;
    announce(line: Record<string, unknown>): void;
    onStopRequest(stop: (reason: string) => void): void;
  };
}

/** Refuses a configuration whose catalog has a missing or absurd price (also a reload's, in a primary). */
export function checkStartable(config: Config): void {
  // A catalog with a missing or absurd price must not run: it would charge nothing or refuse everyone.
  const errors = checkCatalog(config).filter((problem) => problem.severity === 'error');
  if (errors.length > 0) {
    throw new ConfigError(`the model catalog (run: gateway models check)`, errors.map((p) => `${p.model} ${p.field}: ${p.message}`));
  }
}

/** Starts a long-running process around `start` (the command's own part) and keeps it running until a signal. */
export async function startProcess(config: Config, options: StartOptions, start: (services: ServerServices) => Promise<StartedProcess>): Promise<void> {
  checkStartable(config);
  // With --json, stdout carries only the announcement line; the log goes to stderr.
  const logger = createLogger(config.log.level, options.json ? 'stderr' : 'stdout');
  limitHeapGrowth();
  let services: ServerServices | undefined;
  let started: StartedProcess;
  try {
    services = await openServerServices(config, { processMetrics: options.processMetrics, logger, cluster: options.clusterWorker?.state });
    await services.db.migrate.latest();
    started = await start(services);
  } catch (error) {
    await services?.close().catch(() => undefined);
    throw error;
  }
  const stop = stopOnSignals(services.logger, () => started.stop());
  allowYoungGenerationGrowth();
  if (options.clusterWorker) {
    options.clusterWorker.announce({ ...started.json, pid: process.pid });
    options.clusterWorker.onStopRequest(stop);
  } else if (options.json) process.stdout.write(`${JSON.stringify({ ...started.json, pid: process.pid })}\n`);
  else process.stderr.write(`${started.text}\n`);
}
