// The job runner, the lease loop of async jobs: `gateway serve` runs one beside the API,
// `gateway worker` runs one alone, and any number of them share the database. Each tick it
// claims due jobs (with a lease, see job-store.ts), keeps each lease alive with a heartbeat
// while the pipeline takes the job one step further (pipeline/job-step.ts: submit, reconcile,
// poll, collect), and retries a step that failed. It also delivers due webhooks and removes
// expired files. A runner killed at any point leaves jobs whose lease runs out and which another
// runner (or the same one restarted) takes over from their last stored state.
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { backoffMs, type JobStepServices, type StepLease } from '../pipeline/job-context.js';
import { advanceJob } from '../pipeline/job-step.js';
import { newId } from '../util/ids.js';
import type { Job } from './job.js';
import { WebhookSender } from './webhooks.js';
import { BlobStoreUnavailableError } from '../storage/blob-store.js';

export interface RunnerServices extends JobStepServices {
  readonly webhooks: WebhookSender;
}

/** Expired files are looked for this often. */
const garbageIntervalMs = 60_000;

export class JobRunner {
  private readonly active = new Set<Promise<void>>();
  /** Ids of the jobs those steps work on. */
  private readonly working = new Set<string>();
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

  /** Stops claiming; waits for the steps under way (they end by storing their state). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.active]);
    await this.delivering;
    await this.services.webhooks.close();
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
      },
    };
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
