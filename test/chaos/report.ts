// What a chaos run prints: one line per round, then the summary with every loss figure (each
// must be 0), and the same figures as data for the ava test.
import { type LossKind, lossKinds, type Findings } from './checks.js';
import type { FaultKind } from './faults.js';
import type { LoadStats } from './load.js';

export interface ChaosSummary {
  readonly backend: string;
  readonly seed: number;
  rounds: number;
  readonly faults: Record<FaultKind, number>;
  requests: number;
  streams: number;
  jobs: number;
  /** Top-ups made through the cabinet and the simulated YooKassa. */
  payments: number;
  /** Jobs failed `submit_uncertain` (a vendor without idempotency keys, a crash mid-submit): released uncharged. */
  uncertainSubmits: number;
  hostileInputs: number;
  /** Each kind of loss, counted once per lost thing: all must be 0. */
  lost: Record<LossKind, number>;
  /** The details of every loss, for the log. */
  readonly details: string[];
}

export function emptySummary(backend: string, seed: number): ChaosSummary {
  return {
    backend,
    seed,
    rounds: 0,
    faults: { 'kill-serve': 0, 'kill-worker': 0, 'cut-postgres': 0, 'cut-redis': 0, hostile: 0 },
    requests: 0,
    streams: 0,
    jobs: 0,
    payments: 0,
    uncertainSubmits: 0,
    hostileInputs: 0,
    lost: Object.fromEntries(lossKinds.map((kind) => [kind, 0])) as Record<LossKind, number>,
    details: [],
  };
}

export function totalLost(summary: ChaosSummary): number {
  return Object.values(summary.lost).reduce((sum, count) => sum + count, 0);
}

/** `round 3/20 seed 1003 [kill-serve, hostile] 61 requests (2xx 48, 4xx 6, 5xx 1, cut 6), 9 jobs, 13 hostile: lost 0` + a line per new loss. */
export function roundLines(input: { index: number; rounds: number; seed: number; faults: readonly FaultKind[]; load: LoadStats; hostile: number; findings: Findings; seconds: number }): string[] {
  const { load } = input;
  const lost = [...input.findings.values()].reduce((sum, details) => sum + details.length, 0);
  const lines = [
    `round ${input.index + 1}/${input.rounds} seed ${input.seed} [${input.faults.join(', ')}] ${load.sent} requests (2xx ${load.answered2xx}, 4xx ${load.answered4xx}, 5xx ${load.answered5xx}, cut ${load.cut}), ${load.jobsCreated} jobs, ${load.payments.length} payments, ${input.hostile} hostile, ${input.seconds.toFixed(1)} s: ${lost === 0 ? 'lost 0' : `LOST ${lost}`}`,
  ];
  for (const [kind, details] of input.findings) {
    // Losses counted by number share one detail: print it once, with the count.
    const distinct = [...new Set(details)];
    for (const detail of distinct.slice(0, 5)) {
      const times = details.filter((candidate) => candidate === detail).length;
      lines.push(`  ✘ ${kind}: ${detail}${times > 1 ? ` (×${times})` : ''}`);
    }
    if (distinct.length > 5) lines.push(`  ✘ ${kind}: … ${distinct.length - 5} more`);
  }
  return lines;
}

export function summaryLines(summary: ChaosSummary, seconds: number): string[] {
  const faults = Object.entries(summary.faults)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
  const total = totalLost(summary);
  return [
    `chaos ${summary.backend}, seed ${summary.seed}: ${summary.rounds} rounds in ${Math.round(seconds)} s; faults: ${faults || 'none'}`,
    `requests sent: ${summary.requests} (${summary.streams} streams), jobs created: ${summary.jobs} (${summary.uncertainSubmits} failed submit_uncertain, released), hostile inputs: ${summary.hostileInputs}, payments: ${summary.payments}`,
    ...lossKinds.map((kind) => `lost: ${summary.lost[kind]} ${kind}`),
    total === 0 ? 'nothing lost' : `LOST ${total} — see the ✘ lines above`,
  ];
}
