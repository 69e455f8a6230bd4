// The job runner: `gateway serve` runs one beside the API, `gateway worker` runs one alone,
// and any number of them share the database. Each tick it claims due jobs (with a lease, see
// job-store.ts) and takes each one step further — submit it upstream, or poll it; a completed
// job's files are downloaded and stored, then the job ends in one transaction with its
// settle (or release), its history line and its webhook. It also delivers due webhooks and
// removes expired files. A runner killed at any point leaves jobs whose lease runs out and
// which another runner (or the same one restarted) takes over from their last stored state.
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { reportedCostUnits } from '../billing/job-pricing.js';
import type { Config } from '../config/load.js';
import type { JobKind, UpstreamJobState } from '../model/jobs.js';
import type { InputFile } from '../model/media.js';
import type { Logger } from '../observability/logger.js';
import type { Upstream } from '../vendors/shared/http-transport.js';
import { jobAdapterFor } from '../vendors/registry.js';
import { type JobAdapter, type JobOperationName, type JobOperations, keyedSubmit } from '../vendors/job-types.js';
import { runMediaOperation } from '../vendors/shared/media-transport.js';
import type { MediaTarget } from '../vendors/media-types.js';
import { UpstreamError } from '../vendors/types.js';
import { availableRoutes, cooldownMs, RouteCannotServe, tryRoutes } from '../pipeline/route-fallback.js';
import type { Catalog, CatalogModel } from '../catalog/catalog.js';
import type { Files } from '../storage/files.js';
import { newId } from '../util/ids.js';
import type { Job, JobResult } from './job.js';
import type { JobStore } from './job-store.js';
import { WebhookSender } from './webhooks.js';

export interface RunnerServices {
  readonly config: Config;
  readonly logger: Logger;
  readonly catalog: Catalog;
  readonly upstreams: Map<string, Upstream>;
  readonly routeCooldowns: Map<string, number>;
  readonly files: Files;
  readonly jobs: JobStore;
  readonly webhooks: WebhookSender;
}

export const operationOfKind: Record<JobKind, JobOperationName> = { video: 'video', video_upscale: 'videoUpscale', music: 'music' };

/**
 * Polls and failed submits back off: 0.25 s, 0.4 s, 0.64 s … up to 10 s between looks. Whole
 * milliseconds: 250·1.6ⁿ is fractional from n = 2 (640.0000000000001), and PostgreSQL refuses a
 * fraction for the bigint `next_run_at` (22P02) — every poll after the third failed to store
 * and the job was looked at again only when its lease ran out.
 */
export function backoffMs(attempt: number): number {
  return Math.round(Math.min(250 * 1.6 ** attempt, 10_000));
}

/** One poll or submit may not take longer than this, whatever the provider's own timeout. */
const stepTimeoutMs = 120_000;
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
      if (Date.now() - this.lastGarbageAt > garbageIntervalMs) {
        this.lastGarbageAt = Date.now();
        const removed = await files.collectGarbage();
        if (removed.files > 0) logger.info(removed, 'expired files removed');
      }
    } catch (error) {
      logger.error({ err: error }, 'job runner tick failed');
    } finally {
      this.ticking = false;
    }
  }

  /** Takes one claimed job one step further. Never throws: a failed step is retried later. */
  async step(job: Job): Promise<void> {
    const { jobs, logger } = this.services;
    // Renewed all through the step: a slow submit or download never lets another runner take
    // the job (and send it again) while this one is still at work.
    const lease = this.keepLease(job);
    try {
      if (Date.now() >= job.deadlineAt) {
        await jobs.fail(job, this.owner, { code: 'deadline_exceeded', message: `the job did not finish within ${Math.round(this.services.config.jobs.deadlineMs / 1000)} s` });
        return;
      }
      let model: CatalogModel;
      try {
        model = this.services.catalog.resolve(job.model);
      } catch {
        await jobs.fail(job, this.owner, { code: 'model_unavailable', message: `the model ${job.model} is no longer configured on this gateway` });
        return;
      }
      if (job.upstreamId !== null) await this.poll(job, lease);
      else if (job.submitState === 'submitting') await this.reconcile(job, lease);
      else await this.submit(job, model, lease);
    } catch (error) {
      if (lease.lost) return; // the new owner carries on; whatever this step had is dropped
      const retryInMs = backoffMs(job.polls);
      logger.error({ err: error, jobId: job.id, retryInMs }, 'job step failed; retrying later');
      try {
        await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + retryInMs, polled: true });
      } catch (rescheduleError) {
        // Not swallowed: a job whose retry cannot be stored is looked at again only when its
        // lease runs out, and whoever reads the log must see that it is stuck, and why.
        logger.error({ err: rescheduleError, jobId: job.id, leaseMs: this.services.config.jobs.leaseMs }, 'job retry could not be stored; the job waits until its lease runs out');
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
          logger.warn({ jobId: job.id, owner: this.owner }, 'job lease lost to another runner or the operator; this step stops and stores nothing');
          controller.abort(new Error('the job lease was lost'));
        })
        .catch((error: unknown) => logger.warn({ err: error, jobId: job.id }, 'job lease renewal failed; trying again'))
        .finally(() => {
          renewing = false;
        });
    }, Math.max(1, Math.floor(config.jobs.leaseMs / 3)));
    timer.unref();
    return lease;
  }

  /** A first submit: the routes in order, each recorded before it is sent. */
  private async submit(job: Job, model: CatalogModel, lease: StepLease): Promise<void> {
    const { jobs, logger, upstreams, routeCooldowns } = this.services;
    const operation = operationOfKind[job.kind];
    const request = await this.upstreamRequest(job);
    const routes = availableRoutes(model.routes, routeCooldowns);
    let lastError: unknown;
    if (routes.length > 0) {
      try {
        await tryRoutes(
          routes,
          routeCooldowns,
          async (route) => {
            const upstream = upstreams.get(route.provider.name);
            const adapter = upstream && jobAdapterFor(upstream.kind, operation);
            const operations = adapter?.[operation] as JobOperations<unknown> | undefined;
            if (!upstream || !adapter || !operations) throw new RouteCannotServe(route.provider.name, operation);
            const outcome = await this.send(job, { upstream, adapter, operations, upstreamModel: route.model }, request, lease);
            if (outcome.kind === 'refused') throw outcome.error;
          },
          // Refused: nothing was made upstream, so another route may take it if the refusal is transient.
          (error) => error instanceof UpstreamError && error.retryable,
        );
        return;
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        if (!(error instanceof RouteCannotServe)) {
          if (!error.retryable) {
            await jobs.fail(job, this.owner, { code: 'upstream_rejected', message: error.message });
            return;
          }
          lastError = error;
        }
      }
    }
    if (lastError === undefined) {
      // No route can take the job right now (all pausing, or none speaks this operation): wait.
      logger.warn({ jobId: job.id, model: model.id }, 'no route can take this job now');
    } else {
      logger.warn({ err: lastError, jobId: job.id }, 'job submit failed; retrying');
    }
    // Every route refused outright: nothing was made upstream, the next attempt starts afresh.
    await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + backoffMs(job.polls + 2), polled: true, submitState: null });
  }

  /**
   * A job found `submitting`: a submit went out and its outcome was never stored (its runner
   * died, lost its lease, or the answer was lost). Never sent blindly again: re-sent to the same
   * route with the same idempotency key where the vendor honours one (it answers the job it
   * already made, or makes it now if the first never arrived); otherwise failed, hold released.
   */
  private async reconcile(job: Job, lease: StepLease): Promise<void> {
    const { jobs, logger, upstreams } = this.services;
    const operation = operationOfKind[job.kind];
    const upstream = job.provider ? upstreams.get(job.provider) : undefined;
    const adapter = upstream && jobAdapterFor(upstream.kind, operation);
    const operations = adapter?.[operation] as JobOperations<unknown> | undefined;
    if (!upstream || !adapter || !operations) {
      await jobs.fail(job, this.owner, { code: 'provider_unavailable', message: `the provider ${job.provider} this job was being sent to is no longer configured` });
      return;
    }
    if (adapter.idempotencyHeader === undefined) {
      await this.failUncertain(job, upstream.name);
      return;
    }
    logger.info({ jobId: job.id, provider: upstream.name, submitKey: job.submitKey }, 'job found mid-submit; re-sending with its idempotency key');
    const outcome = await this.send(job, { upstream, adapter, operations, upstreamModel: job.upstreamModel ?? '' }, await this.upstreamRequest(job), lease);
    if (outcome.kind !== 'refused') return;
    const error = outcome.error;
    // 409: a vendor may answer a key whose first request it is still working on so (Stripe
    // does): the job may well exist, so it is asked again, like a 429.
    if (!error.retryable && error.status !== 409) {
      await jobs.fail(job, this.owner, { code: 'upstream_rejected', message: error.message });
      return;
    }
    // Refused for now (409, 429, 503): that says nothing of the first send, so the job stays
    // `submitting` on this route, to be re-sent with the same key — never to another route.
    const wait = error.retryAfterMs ? cooldownMs(error.retryAfterMs) : backoffMs(job.polls + 2);
    logger.warn({ err: error, jobId: job.id, provider: upstream.name }, 'job re-send refused for now; retrying with the same key');
    await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + wait, polled: true });
  }

  /**
   * One submit to one route: recorded (`submitting`, key, route) and committed, sent with the
   * key, and its upstream id stored. `submitted`: stored; `handled`: the job was rescheduled or
   * failed here, or the lease is gone; `refused`: the vendor answered with an error (or the
   * connection was refused), so nothing was made upstream.
   */
  private async send(
    job: Job,
    route: { upstream: Upstream; adapter: JobAdapter; operations: JobOperations<unknown>; upstreamModel: string },
    request: unknown,
    lease: StepLease,
  ): Promise<{ kind: 'submitted' | 'handled' } | { kind: 'refused'; error: UpstreamError }> {
    const { jobs, logger } = this.services;
    const { upstream, adapter, operations, upstreamModel } = route;
    const key = submitKeyOf(job);
    if (!(await jobs.markSubmitting(job, this.owner, { provider: upstream.name, upstreamModel, key }))) return { kind: 'handled' };
    let upstreamId: string;
    try {
      const submit = keyedSubmit(operations.submit, adapter.idempotencyHeader, key);
      ({ upstreamId } = await runMediaOperation(upstream, submit, request, this.target(upstream, upstreamModel), this.signal(upstream, lease), adapter.parseError));
    } catch (error) {
      if (lease.lost) return { kind: 'handled' };
      if (isRefusal(error, adapter.idempotencyHeader !== undefined)) return { kind: 'refused', error };
      // Timed out, cut off, or a 2xx we could not read: the vendor may have made the job.
      if (adapter.idempotencyHeader === undefined) {
        await this.failUncertain(job, upstream.name, error);
        return { kind: 'handled' };
      }
      logger.warn({ err: error, jobId: job.id, provider: upstream.name }, 'job submit outcome unknown; re-sending with the same idempotency key');
      await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + backoffMs(job.polls), polled: true });
      return { kind: 'handled' };
    }
    logger.info({ jobId: job.id, provider: upstream.name, upstreamId, submits: job.submits + 1 }, 'job submitted upstream');
    const stored = await jobs.reschedule(job, this.owner, { upstreamId, provider: upstream.name, upstreamModel, nextRunAt: Date.now() + backoffMs(0) });
    // Lost meanwhile: the new owner finds the job `submitting` and reconciles it by its key.
    if (!stored) logger.warn({ jobId: job.id, upstreamId }, 'job submitted but its lease was lost before the upstream id was stored; the new owner reconciles it');
    return { kind: 'submitted' };
  }

  /** A submit whose outcome cannot be known at a vendor without an idempotency key: fail, release, say why. */
  private async failUncertain(job: Job, provider: string, error?: unknown): Promise<void> {
    const message =
      `the gateway could not learn whether ${provider} received this job (${error ? `the submit was cut off: ${(error as Error).message}` : 'its runner stopped before the answer to the submit was stored'}), ` +
      `and ${provider} offers no idempotency key or job list to find out; the job was failed and nothing was charged rather than risk paying for it twice`;
    this.services.logger.error({ err: error, jobId: job.id, provider }, 'job submit outcome unknown at a vendor without idempotency; failing the job and releasing its hold');
    await this.services.jobs.fail(job, this.owner, { code: 'submit_uncertain', message });
  }

  private async poll(job: Job, lease: StepLease): Promise<void> {
    const { jobs, logger, upstreams } = this.services;
    const upstream = job.provider ? upstreams.get(job.provider) : undefined;
    const adapter = upstream && jobAdapterFor(upstream.kind, operationOfKind[job.kind]);
    const operations = adapter?.[operationOfKind[job.kind]] as JobOperations<unknown> | undefined;
    if (!upstream || !adapter || !operations) {
      await jobs.fail(job, this.owner, { code: 'provider_unavailable', message: `the provider ${job.provider} of this job is no longer configured` });
      return;
    }
    const target = this.target(upstream, job.upstreamModel ?? '');
    let state: UpstreamJobState;
    try {
      state = await runMediaOperation(upstream, operations.poll, job.upstreamId!, target, this.signal(upstream, lease), adapter.parseError);
    } catch (error) {
      if (lease.lost) return;
      if (error instanceof UpstreamError && !error.retryable) {
        await jobs.fail(job, this.owner, { code: 'upstream_error', message: error.message });
        return;
      }
      const wait = error instanceof UpstreamError && error.retryAfterMs ? error.retryAfterMs : backoffMs(job.polls);
      logger.warn({ err: error, jobId: job.id }, 'job poll failed; retrying');
      await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + wait, polled: true });
      return;
    }
    const next = Date.now() + backoffMs(job.polls);
    switch (state.state) {
      case 'queued':
      case 'running':
        await jobs.reschedule(job, this.owner, {
          status: state.state === 'running' || job.status === 'in_progress' ? 'in_progress' : 'queued',
          progress: Math.max(job.progress, Math.min(99, Math.round(state.progress ?? job.progress))),
          upstreamStatus: state.raw,
          nextRunAt: next,
          polled: true,
        });
        return;
      case 'unknown':
        // A status the vendor never documented: keep the job as it is and keep looking.
        logger.warn({ jobId: job.id, provider: upstream.name, upstreamStatus: state.raw }, 'unknown upstream job status; still polling');
        await jobs.reschedule(job, this.owner, { upstreamStatus: state.raw, nextRunAt: next, polled: true });
        return;
      case 'failed':
        await jobs.fail(job, this.owner, { code: state.code, message: state.message, upstreamStatus: state.raw });
        return;
      case 'completed':
        await this.collect(job, upstream, adapter, operations, target, state, lease);
    }
  }

  /** Downloads the results, stores them as files, then ends the job with its charge. */
  private async collect(
    job: Job,
    upstream: Upstream,
    adapter: JobAdapter,
    operations: JobOperations<unknown>,
    target: MediaTarget,
    state: Extract<UpstreamJobState, { state: 'completed' }>,
    lease: StepLease,
  ): Promise<void> {
    const { jobs, files, logger, catalog, config } = this.services;
    const wanted = job.kind === 'music' ? (catalog.resolve(job.model).config.capabilities.tracks ?? state.assets.length) : 1;
    const assets = state.assets.slice(0, wanted);
    if (assets.length === 0) {
      await jobs.fail(job, this.owner, { code: 'upstream_empty', message: 'the upstream reported success but offered no result to download', upstreamStatus: state.raw });
      return;
    }
    const fileIds: number[] = [];
    for (const [index, asset] of assets.entries()) {
      let data: Uint8Array;
      try {
        data = await runMediaOperation(upstream, operations.download, asset, target, this.signal(upstream, lease), adapter.parseError);
      } catch (error) {
        if (lease.lost) return;
        logger.warn({ err: error, jobId: job.id }, 'job result download failed; retrying');
        await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + backoffMs(job.polls), polled: true });
        return;
      }
      if (!(await jobs.renewLease(job, this.owner))) return; // another runner or the operator took over
      const extension = asset.mediaType === 'video/mp4' ? 'mp4' : 'mp3';
      const file = await files.save(job.accountId, job.kind === 'music' ? 'music' : 'video', asset.mediaType, data, { filename: `${job.id}-${index}.${extension}` });
      fileIds.push(file.id);
    }
    const result: JobResult = {
      fileIds,
      ...(job.kind === 'music' ? { tracks: assets.map((asset) => ({ durationSeconds: asset.durationSeconds ?? null, title: asset.title ?? null, tags: asset.tags ?? null })) } : {}),
      ...(job.kind === 'video_upscale' && typeof job.request.size === 'string' ? { size: job.request.size } : {}),
    };
    // Quoted jobs cost what was held; a video upscale costs what the upstream reports (never more than held).
    const actualUnits = job.kind === 'video_upscale' && state.actualCost ? reportedCostUnits(state.actualCost, config.currency.usdRub) : job.holdUnits;
    const ended = await jobs.complete(job, this.owner, { actualUnits, result, upstreamStatus: state.raw });
    if (ended) logger.info({ jobId: job.id, files: fileIds.length }, 'job completed');
  }

  /** The upstream request of a job: its stored request, with file inputs read back from storage. */
  private async upstreamRequest(job: Job): Promise<unknown> {
    const request = job.request;
    const input = async (id: unknown): Promise<InputFile | undefined> => {
      if (typeof id !== 'number') return undefined;
      const file = await this.services.files.get(null, id);
      if (!file) throw new Error(`input file ${id} of job ${job.id} is gone`);
      return { data: await this.services.files.read(file), mediaType: file.mediaType, filename: file.filename ?? `input-${id}` };
    };
    switch (job.kind) {
      case 'video':
        return { prompt: request.prompt, seconds: request.seconds, size: request.size, seed: request.seed, reference: await input(request.reference_file_id) };
      case 'video_upscale':
        return {
          video: await input(request.video_file_id),
          prompt: request.prompt,
          upscaleFactor: request.upscale_factor,
          creativity: request.creativity,
          inputWidth: request.input_width,
          inputHeight: request.input_height,
          inputSeconds: request.input_seconds,
        };
      case 'music':
        return { mode: request.mode, prompt: request.prompt, lyrics: request.lyrics, style: request.style, title: request.title, instrumental: request.instrumental, negativeTags: request.negative_tags };
    }
  }

  private target(upstream: Upstream, model: string): MediaTarget {
    return { model, baseUrl: upstream.baseUrl, apiKey: upstream.apiKey };
  }

  /** The step's deadline for one upstream call, cut short when the job's lease is lost. */
  private signal(upstream: Upstream, lease: StepLease): AbortSignal {
    return AbortSignal.any([AbortSignal.timeout(Math.min(upstream.timeoutMs, stepTimeoutMs)), lease.signal]);
  }
}

/** The lease of the job a step is working on, kept alive by its heartbeat (JobRunner.keepLease). */
interface StepLease {
  /** Set when a renewal found the job taken: the step must store nothing more. */
  lost: boolean;
  /** Aborted when the lease is lost. */
  readonly signal: AbortSignal;
  stop(): void;
}

/**
 * The idempotency key of a job's submit: derived from the job id alone, so every runner, after
 * any crash, sends the same one, and the vendor answers the job it already made for it.
 */
export function submitKeyOf(job: Pick<Job, 'id' | 'submitKey'>): string {
  return job.submitKey ?? `gw-${job.id}`;
}

/**
 * Whether a failed submit shows the vendor made nothing: it answered with an error status (or
 * an error envelope), or the connection was refused before the request left. A timeout, a cut
 * connection or a 2xx that could not be read may hide a job the vendor made. With an
 * idempotency key, 500, 502 and 504 count as unknown too (the work may have run behind them):
 * re-sending with the key is free, while moving to another route could pay twice. Without a
 * key they stay refusals — failing every job on a passing 502 would cost more than the rare
 * double job they might hide.
 */
function isRefusal(error: unknown, keyed: boolean): error is UpstreamError {
  if (!(error instanceof UpstreamError)) return false;
  if (error.upstreamType === 'connection_refused') return true;
  if (error.status === 0 || error.upstreamType === 'timeout' || error.upstreamType === 'invalid_response' || error.upstreamType === 'response_too_large') return false;
  if (keyed && (error.status === 500 || error.status === 502 || error.status === 504)) return false;
  return true;
}

/** Host, process and a random part: two runners in one process differ too. */
export function runnerId(): string {
  return `${hostname()}:${process.pid}:${newId('run', 5).slice(4)}`;
}

/** A runner over a serving process's services, with its own webhook sender. */
export function createJobRunner(services: Omit<RunnerServices, 'webhooks'> & { readonly db: Knex }): JobRunner {
  const owner = runnerId();
  const webhooks = new WebhookSender({ db: services.db, logger: services.logger, config: services.config.webhooks, owner });
  return new JobRunner({ ...services, webhooks }, owner);
}
