// The job runner, the lease loop of async jobs: `gateway serve` runs one beside the API,
// `gateway worker` runs one alone, and any number of them share the database. Each tick it
// claims due jobs (with a lease, see src/jobs/job-store.ts), keeps each lease alive with a
// heartbeat while the pipeline takes the job one step further (job-step.ts: submit, reconcile,
// poll, collect), and retries a step that failed. It also delivers due webhooks and removes
// expired files. A runner killed at any point leaves jobs whose lease runs out and which another
// runner (or the same one restarted) takes over from their last stored state.
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { backoffMs, type JobStepServices, type StepLease } from './job-context.js';
import { advanceJob } from './job-step.js';
import { newId } from '../util/ids.js';
import type { Job } from '../jobs/job.js';
import { WebhookSender } from '../jobs/webhooks.js';
import { BlobStoreUnavailableError } from '../storage/blob-store.js';

export interface RunnerServices extends JobStepServices {
  readonly webhooks: WebhookSender;
}

/** Expired files are looked for this often. */
const garbageIntervalMs = 60_000;

/** After the stop deadline aborted the steps still running: how long they may take to end. */
const abandonGraceMs = 10_000;

export class JobRunner {
  private readonly active = new Set<Promise<void>>();
  /** Ids of the jobs those steps work on. */
  private readonly working = new Set<string>();
  /** Per job id of a step under way: stops that step as a lost lease would (at the stop deadline). */
  private readonly leases = new Map<string, () => void>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  /** The webhook round under way: it runs beside the ticks, not inside them. */
  private delivering: Promise<void> | undefined;
  private lastGarbageAt = 0;
  private stopped = false;

  constructor(
    private readonly services: RunnerServices,
    /** Identifies this runner in leases. */
    readonly owner: string = runnerId(),
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.services.config.jobs.tickMs);
    void this.tick();
  }

  /**
   * Stops claiming and waits for the steps under way, which end by storing their state — for
   * at most `deadlineMs` (server.drain_timeout): a step can take minutes (a slow submit or
   * download). Steps still running then are stopped as if their lease were lost (upstream call
   * aborted, nothing stored) and their jobs handed back, so another runner takes each over from
   * its last stored state at once: a submit in flight is reconciled by its idempotency key, never
   * sent blindly again, so the job still ends once, charged once.
   */
  async stop(options: { deadlineMs?: number } = {}): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const steps = Promise.allSettled([...this.active]);
    const ended = options.deadlineMs === undefined ? await steps.then(() => true) : await Promise.race([steps.then(() => true), sleep(options.deadlineMs, false, { ref: false })]);
    if (!ended) await this.abandonSteps(steps);
    await this.delivering;
    await this.services.webhooks.close();
  }

  /** The steps still running at the stop deadline: aborted, then their jobs' leases cleared. */
  private async abandonSteps(steps: Promise<unknown>): Promise<void> {
    const { jobs, logger, config } = this.services;
    const abandoned = [...this.leases.keys()];
    logger.warn({ job_ids: abandoned, drain_timeout_ms: config.server.drainTimeoutMs }, `stop deadline reached: stopping ${abandoned.length} job step(s) still running; another runner takes their jobs over`);
    for (const abandon of this.leases.values()) abandon();
    // An aborted step ends at once (its upstream call rejects); bounded all the same, as a
    // stuck database write must not keep the process alive.
    const settled = await Promise.race([steps.then(() => true), sleep(abandonGraceMs, false, { ref: false })]);
    if (!settled) {
      logger.error({ job_ids: abandoned, lease_ms: config.jobs.leaseMs }, 'job steps still running after being stopped; their leases run out and another runner takes them over');
      return;
    }
    // Every step has ended and stores nothing more: the jobs are free for the next claim now
    // rather than when the lease runs out.
    await jobs.releaseLeases(abandoned, this.owner).catch((error: unknown) => logger.warn({ err: error, job_ids: abandoned, lease_ms: config.jobs.leaseMs }, 'job leases not handed back; they run out instead'));
  }

  /** One round: claim and start due jobs, deliver due webhooks, now and then collect expired files. */
  async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    const { logger, jobs, webhooks, files, config } = this.services;
    try {
      const claimed = await jobs.claim(this.owner, config.jobs.concurrency - this.active.size);
      for (const job of claimed) {
        // Claimed again by this very runner: its step outlived the lease (the process stalled
        // past its heartbeat). That step goes on under the renewed lease; a second one beside
        // it, with the same owner, would pass every compare-and-set and could submit twice.
        if (this.working.has(job.id)) continue;
        this.working.add(job.id);
        const step = this.step(job).finally(() => {
          this.active.delete(step);
          this.working.delete(job.id);
        });
        this.active.add(step);
      }
      // Not awaited: a receiver that hangs until webhooks.timeout must not hold up claiming jobs.
      this.delivering ??= webhooks
        .deliverDue()
        .then(
          () => undefined,
          (error: unknown) => logger.error({ err: error }, 'webhook delivery round failed'),
        )
        .finally(() => {
          this.delivering = undefined;
        });
      if (this.services.now() - this.lastGarbageAt > garbageIntervalMs) {
        this.lastGarbageAt = this.services.now();
        try {
          const removed = await files.collectGarbage();
          if (removed.files > 0) logger.info(removed, 'expired files removed');
        } catch (error) {
          if (!(error instanceof BlobStoreUnavailableError)) throw error;
          // The rows whose objects could not be removed stay unmarked: the next round takes them.
          logger.warn({ err: error, retry_in_ms: garbageIntervalMs }, 'expired files not removed: the blob store is unavailable; retrying next round');
        }
      }
    } catch (error) {
      logger.error({ err: error }, 'job runner tick failed');
    } finally {
      this.ticking = false;
    }
  }

  /** Takes one claimed job one step further (pipeline/job-step.ts). Never throws: a failed step is retried later. */
  async step(job: Job): Promise<void> {
    const { jobs, logger } = this.services;
    // Renewed all through the step: a slow submit or download never lets another runner take
    // the job (and send it again) while this one is still at work.
    const lease = this.keepLease(job);
    try {
      await advanceJob({ services: this.services, owner: this.owner, lease }, job);
    } catch (error) {
      if (lease.lost) return; // the new owner carries on; whatever this step had is dropped
      const retryInMs = backoffMs(job.polls);
      logger.error({ err: error, job_id: job.id, retry_in_ms: retryInMs }, 'job step failed; retrying later');
      try {
        await jobs.reschedule(job, this.owner, { nextRunAt: this.services.now() + retryInMs, polled: true });
      } catch (rescheduleError) {
        // Not swallowed: a job whose retry cannot be stored is looked at again only when its
        // lease runs out, and whoever reads the log must see that it is stuck, and why.
        logger.error({ err: rescheduleError, job_id: job.id, lease_ms: this.services.config.jobs.leaseMs }, 'job retry could not be stored; the job waits until its lease runs out');
      }
    } finally {
      lease.stop();
    }
  }

  /**
   * The heartbeat of one step: renews the job's lease every third of it. When a renewal finds
   * the job taken (the lease ran out during a stall and another runner claimed it, or the
   * operator cancelled it), `signal` aborts the step's upstream call and `lost` is set; every
   * write of the step is compare-and-set on the lease owner anyway, so nothing it still had
   * lands over the new owner's work.
   */
  private keepLease(job: Job): StepLease {
    const { jobs, logger, config } = this.services;
    const controller = new AbortController();
    let stopped = false;
    let renewing = false;
    const lease: StepLease = {
      lost: false,
      signal: controller.signal,
      stop: () => {
        stopped = true;
        clearInterval(timer);
        this.leases.delete(job.id);
      },
    };
    this.leases.set(job.id, () => {
      lease.lost = true;
      controller.abort(new Error('the job runner is stopping'));
    });
    const timer = setInterval(() => {
      if (renewing || stopped) return;
      renewing = true;
      jobs
        .renewLease(job, this.owner)
        .then((held) => {
          if (held || stopped) return;
          lease.lost = true;
          clearInterval(timer);
          logger.warn({ job_id: job.id, owner: this.owner }, 'job lease lost to another runner or the operator; this step stops and stores nothing');
          controller.abort(new Error('the job lease was lost'));
        })
        .catch((error: unknown) => logger.warn({ err: error, job_id: job.id }, 'job lease renewal failed; trying again'))
        .finally(() => {
          renewing = false;
        });
    }, Math.max(1, Math.floor(config.jobs.leaseMs / 3)));
    timer.unref();
    return lease;
  }
}

/** Host, process and a random part: two runners in one process differ too. */
export function runnerId(host: string = hostname()): string {
  return `${host}:${process.pid}:${newId('run', 5).slice(4)}`;
}

/** A runner over a serving process's services, with its own webhook sender. */
export function createJobRunner(services: Omit<RunnerServices, 'webhooks'> & { readonly db: Knex }): JobRunner {
  const owner = runnerId(services.config.instance.hostname);
  const webhooks = new WebhookSender({ db: services.db, logger: services.logger, config: services.config.webhooks, owner });
  return new JobRunner({ ...services, webhooks }, owner);
}
