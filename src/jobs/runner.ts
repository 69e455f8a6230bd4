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
import type { Upstream } from '../providers/http-transport.js';
import { jobAdapterFor } from '../providers/media/jobs/index.js';
import type { JobAdapter, JobOperationName, JobOperations } from '../providers/media/jobs.js';
import { runMediaOperation } from '../providers/media/transport.js';
import type { MediaTarget } from '../providers/media/types.js';
import { UpstreamError } from '../providers/types.js';
import { routeKey } from '../pipeline/routing.js';
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
        const step = this.step(job).finally(() => this.active.delete(step));
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
      if (job.upstreamId === null) await this.submit(job, model);
      else await this.poll(job);
    } catch (error) {
      const retryInMs = backoffMs(job.polls);
      logger.error({ err: error, jobId: job.id, retryInMs }, 'job step failed; retrying later');
      try {
        await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + retryInMs, polled: true });
      } catch (rescheduleError) {
        // Not swallowed: a job whose retry cannot be stored is looked at again only when its
        // lease runs out, and whoever reads the log must see that it is stuck, and why.
        logger.error({ err: rescheduleError, jobId: job.id, leaseMs: this.services.config.jobs.leaseMs }, 'job retry could not be stored; the job waits until its lease runs out');
      }
    }
  }

  private async submit(job: Job, model: CatalogModel): Promise<void> {
    const { jobs, logger, upstreams, routeCooldowns } = this.services;
    const operation = operationOfKind[job.kind];
    const request = await this.upstreamRequest(job);
    const now = Date.now();
    let lastError: unknown;
    for (const route of model.routes) {
      if ((routeCooldowns.get(routeKey(route)) ?? 0) > now) continue;
      const upstream = upstreams.get(route.provider.name);
      const adapter = upstream && jobAdapterFor(upstream.kind, operation);
      const operations = adapter?.[operation] as JobOperations<unknown> | undefined;
      if (!upstream || !adapter || !operations) continue;
      try {
        const submitted = await runMediaOperation(upstream, operations.submit, request, this.target(upstream, route.model), this.signal(upstream), adapter.parseError);
        logger.info({ jobId: job.id, provider: upstream.name, upstreamId: submitted.upstreamId }, 'job submitted upstream');
        await jobs.reschedule(job, this.owner, { upstreamId: submitted.upstreamId, provider: upstream.name, upstreamModel: route.model, nextRunAt: Date.now() + backoffMs(0) });
        return;
      } catch (error) {
        lastError = error;
        if (error instanceof UpstreamError && error.retryAfterMs) routeCooldowns.set(routeKey(route), Date.now() + Math.min(error.retryAfterMs, 300_000));
        if (error instanceof UpstreamError && !error.retryable) {
          await jobs.fail(job, this.owner, { code: 'upstream_rejected', message: error.message });
          return;
        }
      }
    }
    if (lastError === undefined) {
      // No route can take the job right now (all pausing, or none speaks this operation): wait.
      logger.warn({ jobId: job.id, model: model.id }, 'no route can take this job now');
    } else {
      logger.warn({ err: lastError, jobId: job.id }, 'job submit failed; retrying');
    }
    await jobs.reschedule(job, this.owner, { nextRunAt: Date.now() + backoffMs(job.polls + 2), polled: true });
  }

  private async poll(job: Job): Promise<void> {
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
      state = await runMediaOperation(upstream, operations.poll, job.upstreamId!, target, this.signal(upstream), adapter.parseError);
    } catch (error) {
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
        await this.collect(job, upstream, adapter, operations, target, state);
    }
  }

  /** Downloads the results, stores them as files, then ends the job with its charge. */
  private async collect(job: Job, upstream: Upstream, adapter: JobAdapter, operations: JobOperations<unknown>, target: MediaTarget, state: Extract<UpstreamJobState, { state: 'completed' }>): Promise<void> {
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
        data = await runMediaOperation(upstream, operations.download, asset, target, this.signal(upstream), adapter.parseError);
      } catch (error) {
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

  private signal(upstream: Upstream): AbortSignal {
    return AbortSignal.timeout(Math.min(upstream.timeoutMs, stepTimeoutMs));
  }
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
