// What every step of an async job works with: the services it needs, the runner it runs for
// (the lease owner every write compares against) and the lease its heartbeat keeps alive
// (job-runner.ts). Also the pieces the steps share: the backoff, the step's deadline, and
// finding the vendor operations of a job's provider.
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import type { PendingSettles } from '../billing/pending-settles.js';
import type { JobStore } from '../jobs/job-store.js';
import type { Job } from '../jobs/job.js';
import type { Logger } from '../observability/logger.js';
import type { UpstreamObserver } from './upstream-observer.js';
import type { Upstream } from '../vendors/shared/http-transport.js';
import { jobAdapterFor } from '../vendors/registry.js';
import type { JobAdapter, JobOperations } from '../vendors/job-types.js';
import type { MediaTarget } from '../vendors/media-types.js';
import type { Files } from '../storage/files.js';
import { mediaJobRules } from './job-kinds.js';

export interface JobStepServices {
  readonly config: Config;
  readonly logger: Logger;
  /** Upstream failures logged and counted (upstream-observer.ts). */
  readonly upstreamObserver: UpstreamObserver;
  readonly catalog: Catalog;
  readonly upstreams: Map<string, Upstream>;
  readonly routeCooldowns: Map<string, number>;
  readonly files: Files;
  readonly jobs: JobStore;
  /** Where a job's end settles or releases its hold (job-end.ts, through the charge envelope). */
  readonly settles: PendingSettles;
  /** The process's clock (services.now): route pauses are measured on it, as for chat and media. */
  readonly now: () => number;
}

/** The lease of the job a step is working on, kept alive by its runner's heartbeat. */
export interface StepLease {
  /** Set when a renewal found the job taken: the step must store nothing more. */
  lost: boolean;
  /** Aborted when the lease is lost. */
  readonly signal: AbortSignal;
  stop(): void;
}

export interface JobStep {
  readonly services: JobStepServices;
  /** The runner the job is leased to: every write of the step is compare-and-set on it. */
  readonly owner: string;
  readonly lease: StepLease;
}

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

/** The step's deadline for one upstream call, cut short when the job's lease is lost. */
export function stepSignal(upstream: Upstream, lease: StepLease): AbortSignal {
  return AbortSignal.any([AbortSignal.timeout(Math.min(upstream.timeoutMs, stepTimeoutMs)), lease.signal]);
}

/** What a vendor's media operation is built against: the route's model on the provider's upstream (jobs and synchronous media alike). */
export function mediaTarget(upstream: Upstream, model: string): MediaTarget {
  return { model, baseUrl: upstream.baseUrl, apiKey: upstream.apiKey, settings: upstream.settings };
}

/** A provider's operations for a job's kind, or undefined when it is not configured or does not speak them. */
export interface JobVendor {
  readonly upstream: Upstream;
  readonly adapter: JobAdapter;
  readonly operations: JobOperations<unknown>;
}

export function jobVendor(services: JobStepServices, provider: string | null, kind: Job['kind']): JobVendor | undefined {
  const upstream = provider ? services.upstreams.get(provider) : undefined;
  const operation = mediaJobRules(kind).operation;
  const adapter = upstream && jobAdapterFor(upstream.kind, operation);
  const operations = adapter?.[operation] as JobOperations<unknown> | undefined;
  return upstream && adapter && operations ? { upstream, adapter, operations } : undefined;
}
