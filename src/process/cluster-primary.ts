// `serve --workers N` (N > 1): this process is the primary of N serving workers on one port
// (node:cluster, connections handed out round-robin). It serves no request itself. It:
// - checks the configuration and migrates once, and holds the serve lock of the SQLite file;
// - keeps the state one process keeps in memory, once for all workers (cluster-state.ts), when
//   there is no Redis to share it;
// - gives the job runner to one worker (the DB leases make a second runner safe, so a reload's
//   overlap of the old and the new runner worker is harmless; one runner keeps the polling cost
//   of one process);
// - restarts a worker that dies, after releasing the holds of its requests at once: it saw the
//   exit, so no heartbeat has to go stale first (billing/hold-owners.ts);
// - on SIGHUP (or `gateway reload`: serve-control.ts) replaces the workers one by one with the
//   current configuration and code: a new worker is listening before the old one stops taking
//   connections and drains; a configuration that does not load, or a worker that does not start,
//   refuses the reload and the old workers keep serving;
// - on SIGTERM/SIGINT stops every worker gracefully (each drains), then itself.
// docs/scaling.md ("Several workers on one machine") says what is shared and how.
import cluster, { type Worker } from 'node:cluster';
import { ConfigError, type Config } from '../config/load.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { openServices, type Services } from '../services.js';
import { releaseHoldsOfExitedProcess } from '../billing/hold-owners.js';
import { isStateCall, SharedState } from './cluster-state.js';
import type { ToPrimary, ToWorker } from './cluster-worker.js';
import { lockServe } from './serve-lock.js';
import { checkStartable } from './start.js';
import { reloadOutcomeFile, removeControlFile, serveRecordFile, writeControlFile, type ReloadOutcome } from './serve-control.js';

export interface PrimaryOptions {
  readonly workers: number;
  readonly json: boolean;
  /** serve's --no-worker: no job runner in any worker. */
  readonly jobRunner: boolean;
  /** The configuration as it is now on disk (a reload's; throws ConfigError). */
  readonly loadConfig: () => Config;
}

/** How long a new worker may take to listen before the start or the reload counts it as failed. */
const readyTimeoutMs = 120_000;
/** A worker that dies sooner than this after its start is restarted after a pause (no busy crash loop). */
const crashLoopMs = 5_000;

interface Slot {
  worker: Worker;
  readonly jobRunner: boolean;
}

export async function runPrimary(config: Config, options: PrimaryOptions): Promise<void> {
  checkStartable(config);
  const logger = createLogger(config.log.level, options.json ? 'stderr' : 'stdout');
  let services: Services | undefined;
  let lock: { release(): Promise<void> } | undefined;
  try {
    services = openServices(config, { logger, backgroundCheckpoints: false, createDatabase: true });
    await services.db.migrate.latest();
    lock = await lockServe(services);
  } catch (error) {
    await services?.close().catch(() => undefined);
    throw error;
  }
  const primary = new Primary(config, options, services, logger);
  let url: string;
  try {
    url = await primary.start();
  } catch (error) {
    await primary.stop();
    await lock.release();
    await services.close();
    throw error;
  }
  const record = { pid: process.pid, url, workers: options.workers, started_at: new Date().toISOString() };
  writeControlFile(serveRecordFile(config.dataDir), record);
  logger.info({ url, workers: primary.pids(), cache: config.cache.url.startsWith('redis') ? 'redis' : 'primary' }, 'gateway listening');
  if (options.json) process.stdout.write(`${JSON.stringify({ url, pid: process.pid, workers: primary.pids() })}\n`);
  else process.stderr.write(`gateway listening on ${url} (API under ${url}/v1) with ${options.workers} workers; SIGHUP or gateway reload replaces them\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    primary
      .stop()
      .then(async () => {
        removeControlFile(serveRecordFile(config.dataDir));
        await lock.release();
        await services.close();
      })
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => void primary.reload());
}

class Primary {
  private readonly slots: Slot[] = [];
  private readonly state: SharedState;
  /** Workers told to stop (a reload's old ones, or all at a stop): their exit is expected. */
  private readonly retiring = new Set<number>();
  private readonly started = new Map<number, number>();
  private stopping = false;
  private reloads = 0;
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;

  constructor(
    private config: Config,
    private readonly options: PrimaryOptions,
    private readonly services: Services,
    private readonly logger: Logger,
  ) {
    const frozenAt = Date.now();
    if (config.rateLimit.frozenClock) logger.warn('GATEWAY_TEST_FROZEN_RATE_CLOCK is set: the rate limiter clock stands still (tests only)');
    this.state = new SharedState(config.rateLimit.frozenClock ? () => frozenAt : undefined);
  }

  pids(): number[] {
    return this.slots.map((slot) => slot.worker.process.pid!);
  }

  /** Forks every worker and resolves with the address once all listen. */
  async start(): Promise<string> {
    const urls = await Promise.all(
      Array.from({ length: this.options.workers }, async (_, index) => {
        const slot: Slot = { worker: this.fork(index === 0 && this.options.jobRunner), jobRunner: index === 0 && this.options.jobRunner };
        this.slots.push(slot);
        return this.ready(slot.worker);
      }),
    );
    return urls[0]!;
  }

  private fork(jobRunner: boolean): Worker {
    const worker = cluster.fork();
    this.started.set(worker.id, Date.now());
    worker.on('message', (message: ToPrimary) => {
      if (isStateCall(message)) void this.state.answer(worker, message);
      else if (message?.t === 'hello') worker.send({ t: 'role', jobRunner } satisfies ToWorker);
    });
    worker.on('exit', (code, signal) => void this.exited(worker, code, signal));
    return worker;
  }

  /** Resolves with the worker's address once it listens; rejects (and ends it) when it fails or exits first. */
  private ready(worker: Worker): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      let failure = 'it exited before listening';
      const timer = setTimeout(() => {
        failure = `it did not listen within ${readyTimeoutMs / 1000} s`;
        worker.process.kill('SIGKILL');
      }, readyTimeoutMs);
      const onMessage = (message: ToPrimary) => {
        if (message?.t === 'failed') failure = message.message;
        if (message?.t !== 'ready') return;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        resolve(message.url);
      };
      const onExit = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        reject(new Error(`a new worker (pid ${worker.process.pid}) failed to start: ${failure}`));
      };
      worker.on('message', onMessage);
      worker.once('exit', onExit);
    });
  }

  private async exited(worker: Worker, code: number | null, signal: string | null): Promise<void> {
    const pid = worker.process.pid!;
    this.state.forgetWorker(worker.id);
    const expected = this.retiring.delete(worker.id) || this.stopping;
    // Its requests died with it: release their holds now (after a graceful stop there are none).
    const released = await releaseHoldsOfExitedProcess(this.services.db, this.services.ledger, { hostname: this.config.instance.hostname, pid }).catch((error: unknown) => {
      this.logger.error({ err: error, pid }, "could not release the exited worker's holds; the hold sweep of the other workers will");
      return 0;
    });
    if (released > 0) this.logger.warn({ pid, released }, 'released the holds of the requests of a worker that exited');
    const slot = this.slots.find((candidate) => candidate.worker === worker);
    if (expected || !slot) return;
    const lived = Date.now() - (this.started.get(worker.id) ?? 0);
    this.logger.error({ pid, code, signal }, 'a worker exited; starting another');
    if (lived < crashLoopMs) await new Promise((resolve) => setTimeout(resolve, crashLoopMs));
    if (this.stopping || slot.worker !== worker) return;
    slot.worker = this.fork(slot.jobRunner);
    await this.ready(slot.worker).catch((error: unknown) => this.logger.error({ err: error }, 'the replacement worker failed to start'));
  }

  /** Replaces the workers one by one (one reload at a time; a SIGHUP during one runs one more after it). */
  reload(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = this.replaceAll().finally(() => {
      this.reloading = undefined;
      if (this.reloadAgain) {
        this.reloadAgain = false;
        void this.reload();
      }
    });
    return this.reloading;
  }

  private async replaceAll(): Promise<void> {
    const seq = ++this.reloads;
    const outcome = (error?: string): ReloadOutcome => ({ seq, pid: process.pid, ok: error === undefined, ...(error ? { error } : {}), workers: this.pids(), finished_at: new Date().toISOString() });
    let result: ReloadOutcome;
    try {
      const fresh = this.options.loadConfig();
      checkStartable(fresh);
      if (fresh.server.host !== this.config.server.host || fresh.server.port !== this.config.server.port || fresh.database.url !== this.config.database.url || fresh.cache.url !== this.config.cache.url) {
        throw new ConfigError('the reloaded configuration', ['server.host, server.port, database.url and cache.url take effect at a restart, not a reload: restore them, or restart serve']);
      }
      this.logger.info({ seq, workers: this.pids() }, 'reloading: replacing the workers one by one');
      for (const slot of this.slots) {
        if (this.stopping) throw new Error('serve is stopping');
        const next = this.fork(slot.jobRunner);
        await this.ready(next); // throws: the old worker of this slot (and the rest) keep serving
        const old = slot.worker;
        slot.worker = next;
        this.retiring.add(old.id);
        old.send({ t: 'stop' } satisfies ToWorker); // it stops taking connections and drains
      }
      this.config = fresh;
      result = outcome();
      this.logger.info({ seq, workers: result.workers }, 'reloaded');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      result = outcome(reason);
      this.logger.error({ seq, reason }, 'reload refused: the workers serving keep serving');
    }
    writeControlFile(reloadOutcomeFile(this.config.dataDir), result);
  }

  /** Stops every worker gracefully and waits for their exits. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.reloading?.catch(() => undefined);
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            if (worker.isConnected()) worker.send({ t: 'stop' } satisfies ToWorker);
            else worker.process.kill('SIGTERM');
          }),
      ),
    );
  }
}
