// The simulator's asynchronous jobs (videos, music, video upscales): kept in memory, their
// state derived from the wall clock since creation — queued for the first tenth of their
// duration, then running with progress rising to 100, then done (or failed). Per-request
// behaviour comes from magic strings in the prompt:
//   [[sim:job-seconds=N]]     the job takes N seconds (decimals allowed; default 1.5, cap 600)
//   [[sim:job-fail]]          the job ends failed instead of completed
//   [[sim:job-unknown]]       while running, polls report a status the vendor never documented
//   [[sim:cost=X]]            (upscaler) the cost reported, USD
//   [[sim:submit-delay=MS]]   the job is created when the submit arrives, its answer is sent MS
//                             later (cap 600 s): a client that dies or times out meanwhile
//                             leaves an upstream job it never heard of, as with a real vendor
// A submit carrying an `Idempotency-Key` header that this endpoint has seen before answers
// the job that key created (at once, not delayed), as OpenAI does: re-sending after a lost
// answer never makes a second job. Counts of jobs created, replayed and polled are kept for
// GET /__sim/stats (tests and operators only; see simJobStats).
import type { SimContext } from '../context.js';
import { SimError } from '../errors.js';

export interface JobBehaviour {
  readonly durationMs: number;
  /** How long the submit's answer waits after the job was created. */
  readonly submitDelayMs: number;
  readonly fail: boolean;
  readonly unknownStatus: boolean;
  readonly costUsd?: string;
}

export type JobPhase = 'queued' | 'running' | 'completed' | 'failed';

export interface SimJob<Details> {
  readonly id: string;
  readonly createdAt: number;
  readonly behaviour: JobBehaviour;
  readonly details: Details;
  readonly idempotencyKey: string | null;
  /** Polls answered for this job (result downloads not counted). */
  polls: number;
  /** Submits answered with this job: 1 + the replays of its idempotency key. */
  submits: number;
}

/** What GET /__sim/stats reports per job endpoint. */
export interface SimJobCounts {
  /** Jobs made: what a vendor would bill. */
  created: number;
  /** Submits answered with an existing job because their Idempotency-Key was seen before. */
  replayed: number;
  polls: number;
}

const defaultDurationMs = 1500;
const maxDurationMs = 600_000;
/** Every job store of this process, by endpoint name, for the stats endpoint. */
const registry = new Map<string, SimJobs<unknown>>();
/** Jobs are forgotten this long after they end (a simulator runs for days in demos). */
const retentionMs = 60 * 60 * 1000;

export function parseJobBehaviour(text: string): JobBehaviour {
  const seconds = /\[\[sim:job-seconds=(\d+(?:\.\d+)?)\]\]/.exec(text);
  const cost = /\[\[sim:cost=(\d+(?:\.\d+)?)\]\]/.exec(text);
  const submitDelay = /\[\[sim:submit-delay=(\d+)\]\]/.exec(text);
  return {
    durationMs: seconds ? Math.min(maxDurationMs, Math.round(Number(seconds[1]) * 1000)) : defaultDurationMs,
    submitDelayMs: submitDelay ? Math.min(maxDurationMs, Number(submitDelay[1])) : 0,
    fail: text.includes('[[sim:job-fail]]'),
    unknownStatus: text.includes('[[sim:job-unknown]]'),
    costUsd: cost?.[1],
  };
}

/** Removes this module's magic strings (the generic ones are removed by stripMagic). */
export function stripJobMagic(text: string): string {
  return text.replace(/\[\[sim:(job-seconds|cost|submit-delay)=\d+(?:\.\d+)?\]\]|\[\[sim:job-(fail|unknown)\]\]/g, '').replace(/\s+/g, ' ').trim();
}

export class SimJobs<Details> {
  private readonly jobs = new Map<string, SimJob<Details>>();
  /** Idempotency-Key → the job it created, with the request it came with. */
  private readonly byKey = new Map<string, { job: SimJob<Details>; fingerprint: string }>();
  private counter = 0;
  readonly counts: SimJobCounts = { created: 0, replayed: 0, polls: 0 };

  constructor(
    /** The endpoint's name in GET /__sim/stats: videos | music | video_upscales. */
    name: string,
    private readonly prefix: string,
    private readonly instance: string,
  ) {
    registry.set(name, this as SimJobs<unknown>);
  }

  /**
   * A new job, or — for an idempotency key seen before — the job that key made (`replayed`).
   * The same key with a different request is a 409, as vendors answer a reused key.
   */
  create(behaviour: JobBehaviour, details: Details, idempotencyKey?: string): { job: SimJob<Details>; replayed: boolean } {
    this.forgetOld();
    const fingerprint = JSON.stringify({ behaviour, details });
    if (idempotencyKey) {
      const known = this.byKey.get(idempotencyKey);
      if (known) {
        if (known.fingerprint !== fingerprint) {
          throw new SimError(409, 'Idempotency-Key was already used with a different request', null, 'invalid_request_error', 'idempotency_key_reused');
        }
        known.job.submits++;
        this.counts.replayed++;
        return { job: known.job, replayed: true };
      }
    }
    const job: SimJob<Details> = {
      id: `${this.prefix}${this.instance}${(++this.counter).toString(36).padStart(5, '0')}`,
      createdAt: Date.now(),
      behaviour,
      details,
      idempotencyKey: idempotencyKey ?? null,
      polls: 0,
      submits: 1,
    };
    this.jobs.set(job.id, job);
    if (idempotencyKey) this.byKey.set(idempotencyKey, { job, fingerprint });
    this.counts.created++;
    return { job, replayed: false };
  }

  get(id: string): SimJob<Details> | undefined {
    return this.jobs.get(id);
  }

  /** The job, counted as polled once more (GET of its status). */
  poll(id: string): SimJob<Details> | undefined {
    const job = this.jobs.get(id);
    if (job) {
      job.polls++;
      this.counts.polls++;
    }
    return job;
  }

  /** Where the job is now, and its progress 0–100. */
  phase(job: SimJob<Details>, now = Date.now()): { phase: JobPhase; progress: number } {
    const elapsed = now - job.createdAt;
    const duration = job.behaviour.durationMs;
    if (elapsed >= duration) return { phase: job.behaviour.fail ? 'failed' : 'completed', progress: 100 };
    const queuedFor = duration / 10;
    if (elapsed < queuedFor) return { phase: 'queued', progress: 0 };
    return { phase: 'running', progress: Math.min(99, Math.floor(((elapsed - queuedFor) / (duration - queuedFor)) * 100)) };
  }

  private forgetOld(): void {
    const cutoff = Date.now() - retentionMs;
    for (const [id, job] of this.jobs) {
      if (job.createdAt + job.behaviour.durationMs < cutoff) {
        this.jobs.delete(id);
        if (job.idempotencyKey) this.byKey.delete(job.idempotencyKey);
      } else break; // insertion order: the rest are newer
    }
  }
}

/**
 * The Idempotency-Key header of a submit (OpenAI's name; any case), or undefined. Keys longer
 * than 255 characters are refused, as vendors cap them.
 */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['idempotency-key'];
  const key = Array.isArray(value) ? value[0] : value;
  if (key === undefined || key === '') return undefined;
  if (key.length > 255) throw new SimError(400, 'Idempotency-Key must be at most 255 characters', null, 'invalid_request_error');
  return key;
}

/**
 * A submit, after validation and faults: the job is created (or replayed by its Idempotency-Key)
 * now, then a new job's answer waits [[sim:submit-delay]]. Undefined when the client left
 * meanwhile — the job exists all the same, as it would at a vendor.
 */
export async function submitSimJob<Details>(context: SimContext, jobs: SimJobs<Details>, behaviour: JobBehaviour, details: Details): Promise<SimJob<Details> | undefined> {
  const { job, replayed } = jobs.create(behaviour, details, idempotencyKeyOf(context.request.headers));
  if (!replayed && behaviour.submitDelayMs > 0) await context.watch.sleep(behaviour.submitDelayMs);
  return context.watch.closed ? undefined : job;
}

/**
 * GET /__sim/stats — for tests and operators, not part of any vendor protocol: per job endpoint,
 * jobs created (what a vendor would bill), submits replayed by their idempotency key, polls.
 * With `job=<id>`: that job's own counts. Counts cover every simulator of this process.
 */
export function simJobStats(jobId: string | null): unknown {
  if (jobId !== null) {
    for (const [endpoint, jobs] of registry) {
      const job = jobs.get(jobId);
      if (job) return { id: job.id, endpoint, idempotency_key: job.idempotencyKey, submits: job.submits, polls: job.polls, created_at: job.createdAt };
    }
    throw new SimError(404, `no simulated job ${jobId}`, 'job', 'invalid_request_error');
  }
  return { jobs: Object.fromEntries([...registry].map(([endpoint, jobs]) => [endpoint, { ...jobs.counts }])) };
}

/** The simulator's own origin as the client reached it, for absolute result URLs. */
export function originOf(host: string | undefined): string {
  return `http://${host ?? '127.0.0.1'}`;
}
