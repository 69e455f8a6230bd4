// The memory of the soak's processes (issue 30, item 8), three ways:
// - RSS raw, every few seconds, from /proc/PID/status (VmRSS, what the kernel and an OOM killer
//   count): what an operator's graph shows. Under load it is a saw-tooth between V8's full
//   collections, 30-70 MB deep, whose period grows as the allocation rate falls (on a loaded
//   2-core box: up to 11 minutes, longer than a 5-minute warm-up).
// - RSS right after two forced full collections (the processes preload
//   test/fixtures/processes/heap-probe.cjs, which answers SIGUSR2). Steadier, but it follows the
//   load's rate: V8 sizes the young generation (2 to 32 MB) and the process keeps sockets and
//   buffers by the traffic, so when the box's other work ended 17 minutes into a 20-minute run
//   and the soak's rate rose eightfold, it rose from 111 to 151 MB with nothing leaking.
// - the heap held after those collections (V8's heap in use plus its external memory): what a
//   leak raises and a busier process does not (34.3 → 35.1 MB over that run). This is judged:
//   after the warm-up it must stay within the tolerance of the warm-up's highest. The two RSS
//   figures are reported. Only growth counts: less is memory handed back, not a leak.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { installRoot } from '../../src/config/load.js';

/** NODE_OPTIONS for a process whose memory is measured after full collections. */
export const heapProbeNodeOptions = `--expose-gc --require ${path.join(installRoot, 'test', 'fixtures', 'processes', 'heap-probe.cjs')}`;

export interface AfterCollections {
  /** V8's heap in use, and the memory of Buffers and other objects outside it that V8 tracks (bytes). */
  readonly heapUsed: number;
  readonly external: number;
  readonly rssKb: number;
}

function probeLines(output: string): string[] {
  return output.split('\n').filter((line) => line.startsWith('heap-probe ') && line.endsWith('}'));
}

/**
 * Asks a process started with heapProbeNodeOptions for its memory after two full collections
 * (SIGUSR2), and reads its answer from its output; undefined when it gives none within
 * `timeoutMs` (it died meanwhile).
 */
export async function measureAfterCollections(pid: number, output: () => string, timeoutMs = 15_000): Promise<AfterCollections | undefined> {
  const seen = probeLines(output()).length;
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return undefined;
  }
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const line = probeLines(output())[seen];
    if (line) return JSON.parse(line.slice('heap-probe '.length)) as AfterCollections;
    await sleep(50); // the collections take tens of milliseconds in the other process
  }
  return undefined;
}

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

/** `rss steady pid 123 (after collections): warm-up end 131.2 MB, warm-up peak 150.0 MB; after: min 128.4, max 151.3, last 140.2 MB (max +1%), 40 samples: ok` */
export function verdictLine(verdict: RssVerdict, kind: string): string {
  const mb = (kb: number | undefined) => (kb === undefined ? '-' : megabytes(kb));
  const growth = verdict.maxKb !== undefined && verdict.warmupPeakKb ? ` (max ${verdict.maxKb >= verdict.warmupPeakKb ? '+' : ''}${percent(verdict.maxKb / verdict.warmupPeakKb - 1)})` : '';
  return (
    `rss ${verdict.role} pid ${verdict.pids.join('/') || '-'} (${kind}): warm-up end ${mb(verdict.warmupEndKb)} MB, warm-up peak ${mb(verdict.warmupPeakKb)} MB; ` +
    `after: min ${mb(verdict.minKb)}, max ${mb(verdict.maxKb)}, last ${mb(verdict.lastKb)} MB${growth}, ${verdict.samples} samples`
  );
}

function megabytes(kb: number): string {
  return (kb / 1024).toFixed(1);
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}
