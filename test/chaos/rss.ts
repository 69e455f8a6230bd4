// The resident memory of the soak's processes (issue 30, item 8): sampled from
// /proc/PID/status (VmRSS, what the kernel and an OOM killer count), then judged against the
// warm-up. A leak keeps raising the peaks run after run; a heap that grew to its working size
// and stays there is what a long-running server should show.
//
// The reference is the warm-up's PEAK, not a single sample at its end: under a mixed load RSS
// swings by tens of MB between collections (a burst of 3 MB inputs lifts it ~70 MB until V8's
// next full collection), so one sample could be a trough and any later crest would read as
// growth. Only growth is judged: RSS falling below the warm-up is memory returned, not a leak.
import { readFileSync } from 'node:fs';

/** VmRSS of a live process in kB, or undefined when it is gone (or the kernel has no /proc). */
export function readRssKb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface RssSample {
  /** Milliseconds since the soak began. */
  readonly atMs: number;
  readonly pid: number;
  readonly rssKb: number;
}

export interface RssVerdict {
  readonly role: string;
  /** The pids seen: more than one means the process died and was restarted (its memory started over). */
  readonly pids: readonly number[];
  readonly samples: number;
  /** The last sample of the warm-up, and the warm-up's peak (the reference of the check). */
  readonly warmupEndKb: number | undefined;
  readonly warmupPeakKb: number | undefined;
  /** Over the samples after the warm-up. */
  readonly minKb: number | undefined;
  readonly maxKb: number | undefined;
  readonly lastKb: number | undefined;
  /** Empty when the RSS stayed within the tolerance; else why not. */
  readonly problem: string;
}

/**
 * Judges one process's samples: after `warmupMs`, every sample must be at most
 * (1 + tolerance) × the warm-up's peak. No samples on either side is a problem too (the soak
 * was too short to say anything).
 */
export function judgeRss(role: string, samples: readonly RssSample[], warmupMs: number, tolerance: number): RssVerdict {
  const pids = [...new Set(samples.map((sample) => sample.pid))];
  const warmup = samples.filter((sample) => sample.atMs <= warmupMs).map((sample) => sample.rssKb);
  const after = samples.filter((sample) => sample.atMs > warmupMs).map((sample) => sample.rssKb);
  const warmupPeakKb = warmup.length > 0 ? Math.max(...warmup) : undefined;
  const maxKb = after.length > 0 ? Math.max(...after) : undefined;
  let problem = '';
  if (pids.length > 1) problem = `restarted (pids ${pids.join(', ')}): its memory started over`;
  else if (warmupPeakKb === undefined || maxKb === undefined) problem = `too few samples (${warmup.length} in the warm-up, ${after.length} after)`;
  else if (maxKb > warmupPeakKb * (1 + tolerance)) {
    problem = `grew to ${megabytes(maxKb)} MB, ${percent(maxKb / warmupPeakKb - 1)} over the warm-up's peak of ${megabytes(warmupPeakKb)} MB (at most ${percent(tolerance)})`;
  }
  return {
    role,
    pids,
    samples: samples.length,
    warmupEndKb: warmup.at(-1),
    warmupPeakKb,
    minKb: after.length > 0 ? Math.min(...after) : undefined,
    maxKb,
    lastKb: after.at(-1),
    problem,
  };
}

/** `steady pid 123: warm-up end 131.2 MB, peak 190.0 MB; after: min 128.4, max 201.3, last 140.2 MB (+6%): ok` */
export function verdictLine(verdict: RssVerdict): string {
  const mb = (kb: number | undefined) => (kb === undefined ? '-' : megabytes(kb));
  const growth = verdict.maxKb !== undefined && verdict.warmupPeakKb ? ` (max ${verdict.maxKb >= verdict.warmupPeakKb ? '+' : ''}${percent(verdict.maxKb / verdict.warmupPeakKb - 1)})` : '';
  return (
    `rss ${verdict.role} pid ${verdict.pids.join('/') || '-'}: warm-up end ${mb(verdict.warmupEndKb)} MB, warm-up peak ${mb(verdict.warmupPeakKb)} MB; ` +
    `after: min ${mb(verdict.minKb)}, max ${mb(verdict.maxKb)}, last ${mb(verdict.lastKb)} MB${growth}, ${verdict.samples} samples: ${verdict.problem || 'ok'}`
  );
}

function megabytes(kb: number): string {
  return (kb / 1024).toFixed(1);
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}
