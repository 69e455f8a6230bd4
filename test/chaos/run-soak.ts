// The soak run (issue 30, item 8): `npm run chaos -- --soak [--minutes N]`. The chaos cluster
// (cluster.ts) under the chaos load (load.ts) and the hostile inputs of issue 13 (one batch
// per round, to the steady serve process) for a fixed time, without kills or cuts: the serve
// processes live the whole run, so their resident memory can be followed. It samples each
// process's RSS raw every few seconds, and its RSS and heap right after forced full collections;
// it judges the heap held (rss.ts says why not the RSS), reports the rest, and ends with the
// chaos run's checks (checks.ts: every `lost:` figure).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Backend } from '../helpers/test-database.js';
import { Checker } from './checks.js';
import { Cluster, type Role } from './cluster.js';
import { type HostileOutcome, sendHostileInputs } from './hostile-inputs.js';
import { emptyLoadStats, Load } from './load.js';
import { Random } from './random.js';
import { type ChaosSummary, emptySummary, summaryLines } from './report.js';
import { heapProbeNodeOptions, judgeRss, measureAfterCollections, readRssKb, type RssSample, type RssVerdict, verdictLine } from './rss.js';

export interface SoakOptions {
  readonly backend: Backend;
  /** How long the load runs (fractions allowed: the test runs well under a minute). */
  readonly minutes: number;
  /** Round i's load and hostile timing use seed + i. */
  readonly seed: number;
  /** The length of one round: its load, with one batch of hostile inputs inside it. */
  readonly roundMs?: number;
  /** How often each process's RSS is read (raw). */
  readonly sampleMs?: number;
  /** How often each process is collected and measured (the judged figure). */
  readonly collectEveryMs?: number;
  /** The share of the run that is warm-up (the heap grows to its working size meanwhile). */
  readonly warmupFraction?: number;
  /** How far above the warm-up's highest a serve process's RSS after collections may go afterwards (0.15: 15%). */
  readonly tolerance?: number;
  /** How long what settles on its own may take after the load, for the final checks. */
  readonly settleMs?: number;
  readonly redisUrl?: string;
  readonly log?: (line: string) => void;
}

export interface ProcessMemory {
  readonly role: Role;
  /** What the process holds after two full collections, V8's heap in use plus its external memory: judged for the serve processes. */
  readonly held: RssVerdict;
  /** RSS right after those collections: reported. */
  readonly collected: RssVerdict;
  /** RSS as it is, every sampleMs: reported. */
  readonly raw: RssVerdict;
}

export interface SoakSummary {
  /** The chaos figures of the whole run: rounds, requests, hostile inputs, every `lost:` kind. */
  readonly chaos: ChaosSummary;
  /** victim and steady (judged), then the worker (reported only: the issue is the serving processes' memory). */
  readonly memory: readonly ProcessMemory[];
}

/** Serve processes whose memory held after collections grew past the tolerance (or restarted): one line each. */
export function rssProblems(summary: SoakSummary): string[] {
  return summary.memory.filter((memory) => memory.role !== 'worker' && memory.held.problem !== '').map((memory) => `${memory.role}: ${memory.held.problem}`);
}

const roles: readonly Role[] = ['victim', 'steady', 'worker'];

export async function runSoak(options: SoakOptions): Promise<SoakSummary> {
  const log = options.log ?? ((line: string) => console.log(line));
  const durationMs = Math.round(options.minutes * 60_000);
  const roundMs = options.roundMs ?? 3000;
  const sampleMs = options.sampleMs ?? 5000;
  const collectEveryMs = options.collectEveryMs ?? 30_000;
  const warmupMs = durationMs * (options.warmupFraction ?? 0.25);
  const tolerance = options.tolerance ?? 0.15;
  // A line every twentieth of the run, at least every minute.
  const progressMs = Math.min(60_000, Math.max(sampleMs, durationMs / 20));
  const summary = emptySummary(options.backend, options.seed);
  const totalMinutes = Number(options.minutes.toFixed(2));
  log(
    `soak ${options.backend}: ${totalMinutes} min of load and hostile inputs, seed ${options.seed}; ` +
      `RSS every ${sampleMs / 1000} s, heap and RSS after full collections every ${collectEveryMs / 1000} s; warm-up ${Math.round(warmupMs / 1000)} s, then the heap held at most +${Math.round(tolerance * 100)}% over the warm-up's highest`,
  );
  const cluster = await Cluster.start(options.backend, { redisUrl: options.redisUrl, env: { NODE_OPTIONS: heapProbeNodeOptions } });
  const samples = new Map<Role, RssSample[]>(roles.map((role) => [role, []]));
  const collected = new Map<Role, RssSample[]>(roles.map((role) => [role, []]));
  const held = new Map<Role, RssSample[]>(roles.map((role) => [role, []]));
  const started = Date.now();
  const sample = () => {
    for (const role of roles) {
      const pid = cluster.process(role).pid;
      const rssKb = readRssKb(pid);
      if (rssKb !== undefined) samples.get(role)!.push({ atMs: Date.now() - started, pid, rssKb });
    }
  };
  // One process at a time, never two rounds of it at once (a slow answer on a loaded box).
  let collecting: Promise<void> = Promise.resolve();
  const collect = () =>
    (collecting = collecting.then(async () => {
      for (const role of roles) {
        const managed = cluster.process(role);
        const pid = managed.pid;
        const measured = managed.current && (await measureAfterCollections(pid, managed.current.output));
        if (!measured) continue;
        const atMs = Date.now() - started;
        collected.get(role)!.push({ atMs, pid, rssKb: measured.rssKb });
        held.get(role)!.push({ atMs, pid, rssKb: Math.round((measured.heapUsed + measured.external) / 1024) });
      }
    }));
  const last = (role: Role) => {
    const kb = samples.get(role)!.at(-1)?.rssKb;
    const after = collected.get(role)!.at(-1)?.rssKb;
    return `${kb === undefined ? '-' : (kb / 1024).toFixed(1)} MB (${after === undefined ? '-' : (after / 1024).toFixed(1)} after collections)`;
  };
  let sampler: NodeJS.Timeout | undefined;
  let collector: NodeJS.Timeout | undefined;
  try {
    sample();
    await collect();
    sampler = setInterval(sample, sampleMs);
    collector = setInterval(() => void collect(), collectEveryMs);
    const stats = emptyLoadStats();
    const hostileOutcomes: HostileOutcome[] = [];
    let lastProgress = started;
    for (let index = 0; Date.now() - started < durationMs; index++) {
      const roundSeed = options.seed + index;
      const random = new Random(roundSeed ^ 0x5bd1e995);
      const load = new Load(cluster, new Random(roundSeed), `soak-${roundSeed}`, stats);
      const hostile = async () => {
        await sleep(random.int(200, 1200)); // into the round, with load in flight
        const outcomes = await sendHostileInputs(cluster, random.pick(cluster.accounts.slice(0, 3)));
        hostileOutcomes.push(...outcomes);
        summary.hostileInputs += outcomes.length;
      };
      await Promise.all([load.run(Math.min(roundMs, durationMs - (Date.now() - started))), hostile()]);
      summary.rounds++;
      summary.faults.hostile++;
      // A process killed by its input comes back (and is counted by the checks; its RSS verdict says restarted).
      await cluster.restartDead();
      if (Date.now() - lastProgress >= progressMs) {
        lastProgress = Date.now();
        const minutes = ((Date.now() - started) / 60_000).toFixed(1);
        const phase = Date.now() - started <= warmupMs ? ' (warm-up)' : '';
        log(
          `soak ${minutes}/${totalMinutes} min${phase}: ${summary.rounds} rounds, ${stats.sent} requests (2xx ${stats.answered2xx}, 4xx ${stats.answered4xx}, 5xx ${stats.answered5xx}, cut ${stats.cut}), ` +
            `${summary.hostileInputs} hostile; rss victim ${last('victim')}, steady ${last('steady')}, worker ${last('worker')}`,
        );
      }
    }
    summary.requests = stats.sent + summary.hostileInputs;
    summary.streams = stats.streams;
    summary.jobs = stats.jobsCreated;
    // The chaos run's checks, once, over everything the run sent: the load has stopped, so they
    // also wait for the jobs in flight to end.
    const checker = new Checker(cluster, options.settleMs ?? 30_000);
    const findings = await checker.check({ round: 0, hostileOutcomes, replayMismatches: stats.replayMismatches, exits: cluster.unexpectedExits, payments: stats.payments });
    for (const [kind, details] of findings) summary.details.push(...details.map((detail) => `${kind}: ${detail}`));
    summary.lost = checker.totals();
    summary.uncertainSubmits = checker.uncertainSubmits;
    // The last samples are the processes at rest, after the checks.
    clearInterval(sampler);
    clearInterval(collector);
    sample();
    await collect();
  } finally {
    clearInterval(sampler);
    clearInterval(collector);
    await collecting.catch(() => undefined);
    await cluster.stop();
  }
  const memory = roles.map(
    (role): ProcessMemory => ({
      role,
      held: judgeRss(role, held.get(role)!, warmupMs, tolerance),
      collected: judgeRss(role, collected.get(role)!, warmupMs, tolerance),
      raw: judgeRss(role, samples.get(role)!, warmupMs, tolerance),
    }),
  );
  const result: SoakSummary = { chaos: summary, memory };
  for (const line of summaryLines(summary, (Date.now() - started) / 1000)) log(line);
  for (const detail of summary.details.slice(0, 20)) log(`  ✘ ${detail}`);
  for (const entry of memory) {
    log(`${verdictLine(entry.held, 'heap held after collections').replace(/^rss /, 'heap ')}: ${entry.role === 'worker' ? 'reported, not judged' : entry.held.problem || 'ok'}`);
    log(verdictLine(entry.collected, 'after collections'));
    log(verdictLine(entry.raw, 'raw'));
  }
  const problems = rssProblems(result);
  log(problems.length === 0 ? `memory: every serve process's heap held within +${Math.round(tolerance * 100)}% of the warm-up's highest` : `MEMORY GREW: ${problems.join('; ')}`);
  return result;
}
