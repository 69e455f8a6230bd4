// The simulator's asynchronous jobs (videos, music, video upscales): kept in memory, their
// state derived from the wall clock since creation — queued for the first tenth of their
// duration, then running with progress rising to 100, then done (or failed). Per-request
// behaviour comes from magic strings in the prompt:
//   [[sim:job-seconds=N]]  the job takes N seconds (decimals allowed; default 1.5, cap 600)
//   [[sim:job-fail]]       the job ends failed instead of completed
//   [[sim:job-unknown]]    while running, polls report a status the vendor never documented
//   [[sim:cost=X]]         (upscaler) the cost reported, USD

export interface JobBehaviour {
  readonly durationMs: number;
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
}

const defaultDurationMs = 1500;
const maxDurationMs = 600_000;
/** Jobs are forgotten this long after they end (a simulator runs for days in demos). */
const retentionMs = 60 * 60 * 1000;

export function parseJobBehaviour(text: string): JobBehaviour {
  const seconds = /\[\[sim:job-seconds=(\d+(?:\.\d+)?)\]\]/.exec(text);
  const cost = /\[\[sim:cost=(\d+(?:\.\d+)?)\]\]/.exec(text);
  return {
    durationMs: seconds ? Math.min(maxDurationMs, Math.round(Number(seconds[1]) * 1000)) : defaultDurationMs,
    fail: text.includes('[[sim:job-fail]]'),
    unknownStatus: text.includes('[[sim:job-unknown]]'),
    costUsd: cost?.[1],
  };
}

/** Removes this module's magic strings (the generic ones are removed by stripMagic). */
export function stripJobMagic(text: string): string {
  return text.replace(/\[\[sim:(job-seconds|cost)=\d+(?:\.\d+)?\]\]|\[\[sim:job-(fail|unknown)\]\]/g, '').replace(/\s+/g, ' ').trim();
}

export class SimJobs<Details> {
  private readonly jobs = new Map<string, SimJob<Details>>();
  private counter = 0;

  constructor(
    private readonly prefix: string,
    private readonly instance: string,
  ) {}

  create(behaviour: JobBehaviour, details: Details): SimJob<Details> {
    this.forgetOld();
    const job = { id: `${this.prefix}${this.instance}${(++this.counter).toString(36).padStart(5, '0')}`, createdAt: Date.now(), behaviour, details };
    this.jobs.set(job.id, job);
    return job;
  }

  get(id: string): SimJob<Details> | undefined {
    return this.jobs.get(id);
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
      if (job.createdAt + job.behaviour.durationMs < cutoff) this.jobs.delete(id);
      else break; // insertion order: the rest are newer
    }
  }
}

/** The simulator's own origin as the client reached it, for absolute result URLs. */
export function originOf(host: string | undefined): string {
  return `http://${host ?? '127.0.0.1'}`;
}
