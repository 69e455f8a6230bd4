// The chaos suite (issue 13, "make it a standing test"): a bounded loop of rounds over real
// processes. Each round runs background load while it injects the faults its seed chooses,
// brings every process back, then checks that nothing was lost (checks.ts). `npm run chaos`
// (scripts/chaos.ts) runs it long; test/chaos/chaos-short.test.ts runs a few rounds in `npm test`.
//
// Files: cluster.ts (the processes, proxies, database, accounts), load.ts (the background
// load), faults.ts (what a round breaks), hostile-inputs.ts, checks.ts, report.ts.
import type { Backend } from '../helpers/test-database.js';
import { Checker } from './checks.js';
import { Cluster } from './cluster.js';
import { chooseFaults, type FaultContext, faultKindsOf, injectFault } from './faults.js';
import type { HostileOutcome } from './hostile-inputs.js';
import { emptyLoadStats, Load } from './load.js';
import { Random } from './random.js';
import { type ChaosSummary, emptySummary, roundLines, summaryLines } from './report.js';

export interface ChaosOptions {
  readonly backend: Backend;
  readonly rounds: number;
  /** Round i uses seed + i: `--seed S --rounds 1` replays the round printed with seed S. */
  readonly seed: number;
  /** How long each round's load runs. */
  readonly roundMs?: number;
  /** How long what settles on its own (sweeps, jobs, batched records) may take after a round. */
  readonly settleMs?: number;
  /** Redis behind the PostgreSQL run's cache (a proxy in front of it is what gets cut). */
  readonly redisUrl?: string;
  readonly log?: (line: string) => void;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const log = options.log ?? ((line: string) => console.log(line));
  const roundMs = options.roundMs ?? 3000;
  const settleMs = options.settleMs ?? 30_000;
  const summary = emptySummary(options.backend, options.seed);
  const runStarted = Date.now();
  log(`chaos ${options.backend}: ${options.rounds} rounds, seed ${options.seed} (replay one round: --seed <its seed> --rounds 1)`);
  const cluster = await Cluster.start(options.backend, { redisUrl: options.redisUrl });
  try {
    const checker = new Checker(cluster, settleMs);
    const kinds = faultKindsOf(options.backend);
    let exitsSeen = 0;
    for (let index = 0; index < options.rounds; index++) {
      const roundSeed = options.seed + index;
      const roundStarted = Date.now();
      // Separate streams for faults and load: the load's draws depend on timing, the faults' do not.
      const faultRandom = new Random(roundSeed ^ 0x5bd1e995);
      const faults = chooseFaults(faultRandom, kinds, roundSeed);
      const load = new Load(cluster, new Random(roundSeed), String(roundSeed), emptyLoadStats());
      const hostileOutcomes: HostileOutcome[] = [];
      const context: FaultContext = { cluster, load, random: faultRandom, hostileOutcomes };
      await Promise.all([load.run(roundMs), ...faults.map((kind) => injectFault(kind, context))]);
      // A process that died of its input comes back too (its death is counted below).
      await cluster.restartDead();
      const exits = cluster.unexpectedExits.slice(exitsSeen);
      exitsSeen = cluster.unexpectedExits.length;
      const findings = await checker.check({ round: index, hostileOutcomes, replayMismatches: load.stats.replayMismatches, exits, payments: load.stats.payments });

      summary.rounds++;
      for (const kind of faults) summary.faults[kind]++;
      summary.requests += load.stats.sent + hostileOutcomes.length;
      summary.streams += load.stats.streams;
      summary.jobs += load.stats.jobsCreated;
      summary.payments += load.stats.payments.length;
      summary.hostileInputs += hostileOutcomes.length;
      for (const [kind, details] of findings) summary.details.push(...details.map((detail) => `round seed ${roundSeed}: ${kind}: ${detail}`));
      const lines = roundLines({ index, rounds: options.rounds, seed: roundSeed, faults, load: load.stats, hostile: hostileOutcomes.length, findings, seconds: (Date.now() - roundStarted) / 1000 });
      for (const line of lines) log(line);
    }
    summary.lost = checker.totals();
    summary.uncertainSubmits = checker.uncertainSubmits;
  } finally {
    await cluster.stop();
  }
  for (const line of summaryLines(summary, (Date.now() - runStarted) / 1000)) log(line);
  return summary;
}
