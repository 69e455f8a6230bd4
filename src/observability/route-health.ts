// Upstream health per route ("provider:upstream model") as this process has seen it, for the
// operator (GET /admin/v1/upstreams): calls and failures of the last 15 minutes, the latency
// of those calls, and the last few failures with their status and (redacted) message. Fed by
// UpstreamObserver with every call tryRoutes makes and every upstream failure (job polls and
// downloads too). Kept in memory, per process: each instance answers for its own calls, and a
// restart starts it over — /metrics has the counters over the process's life.
// A call costs a map lookup, a bucket increment and one sample written into a fixed ring.

/** The window the counts and latencies cover. */
export const healthWindowMs = 15 * 60_000;
const minuteMs = 60_000;
const windowMinutes = healthWindowMs / minuteMs;
/** Latency samples kept per route (the newest; those older than the window are not counted). */
const samplesKept = 256;
/** Failures kept per route with their details, newest first. */
export const recentErrorsKept = 10;

export interface RouteFailureNote {
  readonly at: number;
  /** The upstream's status (`502`, `429`, `timeout`, `connect_error`, `stream_error`, `error`). */
  readonly status: string;
  /** The vendor's message, redacted and shortened as in the log line. */
  readonly message: string;
  /** The gateway's model the call was for. */
  readonly model: string;
  /** chat, a media operation, job_submit, job_poll, job_download. */
  readonly operation: string;
  readonly requestId: string | null;
  readonly jobId: string | null;
}

export interface RouteHealthSnapshot {
  readonly calls: number;
  readonly errors: number;
  /** Over the calls of the window (from the call to its end: a whole stream for chat); null when there were none. */
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly max: number } | null;
  readonly recentErrors: readonly RouteFailureNote[];
}

class RouteRecord {
  /** Calls and errors per minute, indexed by minute % windowMinutes; `minutes` says which minute a slot holds. */
  readonly minutes = new Float64Array(windowMinutes).fill(-1);
  readonly calls = new Uint32Array(windowMinutes);
  readonly errors = new Uint32Array(windowMinutes);
  readonly sampleMs = new Float64Array(samplesKept);
  readonly sampleAt = new Float64Array(samplesKept);
  samples = 0;
  recent: RouteFailureNote[] = [];

  slot(at: number): number {
    const minute = Math.floor(at / minuteMs);
    const index = minute % windowMinutes;
    if (this.minutes[index] !== minute) {
      this.minutes[index] = minute;
      this.calls[index] = 0;
      this.errors[index] = 0;
    }
    return index;
  }
}

export class RouteHealth {
  private readonly routes = new Map<string, RouteRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  private recordOf(route: string): RouteRecord {
    let record = this.routes.get(route);
    if (!record) {
      record = new RouteRecord();
      this.routes.set(route, record);
    }
    return record;
  }

  /** A call made to `route` (success or failure), lasting `seconds`. */
  called(route: string, seconds: number): void {
    const record = this.recordOf(route);
    const at = this.now();
    record.calls[record.slot(at)]!++;
    const index = record.samples++ % samplesKept;
    record.sampleMs[index] = seconds * 1000;
    record.sampleAt[index] = at;
  }

  /** A failure of `route` (counted as an error of the window, kept among its recent ones). */
  failed(route: string, note: Omit<RouteFailureNote, 'at'>): void {
    const record = this.recordOf(route);
    const at = this.now();
    record.errors[record.slot(at)]!++;
    record.recent = [{ at, ...note }, ...record.recent.slice(0, recentErrorsKept - 1)];
  }

  /** What the window holds for `route` now. */
  snapshot(route: string): RouteHealthSnapshot {
    const record = this.routes.get(route);
    if (!record) return { calls: 0, errors: 0, latencyMs: null, recentErrors: [] };
    const now = this.now();
    const oldestMinute = Math.floor(now / minuteMs) - windowMinutes + 1;
    let calls = 0;
    let errors = 0;
    for (let index = 0; index < windowMinutes; index++) {
      if (record.minutes[index]! >= oldestMinute) {
        calls += record.calls[index]!;
        errors += record.errors[index]!;
      }
    }
    const latencies: number[] = [];
    for (let index = 0; index < Math.min(record.samples, samplesKept); index++) {
      if (record.sampleAt[index]! > now - healthWindowMs) latencies.push(record.sampleMs[index]!);
    }
    latencies.sort((a, b) => a - b);
    const at = (quantile: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(quantile * latencies.length) - 1)]!);
    return {
      calls,
      errors,
      latencyMs: latencies.length === 0 ? null : { p50: at(0.5), p95: at(0.95), max: Math.round(latencies.at(-1)!) },
      recentErrors: record.recent,
    };
  }
}
