// The soak (issue 30, item 8) inside `npm test`: the long one is `npm run chaos -- --soak`
// (20 minutes per backend). Here 40 s on SQLite exercise the same runSoak end to end (the
// cluster, the load with a batch of hostile inputs per round, the RSS sampled from /proc raw
// and, with the heap, after forced full collections, the chaos checks at the end) with a relaxed bound: a 10 s
// warm-up is too short for the heap to reach its working size, so only a doubling fails here.
// The judgement itself is checked exactly on made-up samples below.
import test from 'ava';
import { countRun, needing, redisUrl } from '../helpers/backends.js';
import { lossKinds } from './checks.js';
import { hostileInputs } from './hostile-inputs.js';
import { judgeRss, type RssSample, verdictLine } from './rss.js';
import { rssProblems, runSoak } from './run-soak.js';

// Two serve processes on one SQLite file need Redis to share their limits (issue 30, item 9).
needing('redis').serial('soak: 40 s of load and hostile inputs lose nothing, and the memory of each process is followed, raw and after collections, from its warm-up to its rest [sqlite]', async (t) => {
  t.timeout(240_000);
  const summary = await runSoak({ backend: 'sqlite', redisUrl, minutes: 40 / 60, seed: 30, sampleMs: 1000, collectEveryMs: 2000, tolerance: 1, settleMs: 20_000, log: (line) => t.log(line) });
  const { chaos } = summary;
  t.true(chaos.rounds >= 2, `${chaos.rounds} rounds`);
  t.is(chaos.hostileInputs, chaos.rounds * hostileInputs.length, 'one batch of every hostile input per round');
  t.true(chaos.requests > chaos.hostileInputs && chaos.jobs > 0, 'load was sent and jobs were created');
  t.deepEqual(chaos.lost, Object.fromEntries(lossKinds.map((kind) => [kind, 0])), chaos.details.slice(0, 20).join('\n'));
  t.deepEqual(
    summary.memory.map((memory) => memory.role),
    ['victim', 'steady', 'worker'],
  );
  for (const { role, raw, collected, held } of summary.memory) {
    t.deepEqual([raw.pids.length, collected.pids.length, held.pids.length], [1, 1, 1], `${role}: one process throughout`);
    // 40 s at one sample a second and a collection every 2 s, less what a loaded machine delays.
    t.true(raw.samples >= 20 && collected.samples >= 8 && held.samples === collected.samples, `${role}: ${raw.samples} raw samples, ${collected.samples} after collections`);
    for (const verdict of [raw, collected, held]) {
      t.true(verdict.warmupPeakKb! >= verdict.warmupEndKb! && verdict.warmupEndKb! > 1000, `${role}: a warm-up of a real process`);
      t.true(verdict.minKb! <= verdict.lastKb! && verdict.lastKb! <= verdict.maxKb!, `${role}: min <= last <= max`);
    }
    t.true(held.maxKb! < collected.minKb!, `${role}: the heap held is a part of the RSS`);
  }
  t.deepEqual(rssProblems(summary), []);
  countRun('sqlite');
  countRun('redis');
});

/** One process's samples: `warmup` before 100 ms, `after` from then on. */
function samples(warmup: number[], after: number[], pid = 7): RssSample[] {
  return [...warmup.map((rssKb, index) => ({ atMs: index * 10, pid, rssKb })), ...after.map((rssKb, index) => ({ atMs: 110 + index * 10, pid, rssKb }))];
}

test("soak: memory is judged against the warm-up's highest, growth only", (t) => {
  // A trough at the warm-up's end (100 MB) and a later crest at its peak's level: not growth.
  const plateau = judgeRss('steady', samples([120_000, 150_000, 102_400], [110_000, 170_000, 140_000]), 100, 0.15);
  t.deepEqual(plateau, { role: 'steady', pids: [7], samples: 6, warmupEndKb: 102_400, warmupPeakKb: 150_000, minKb: 110_000, maxKb: 170_000, lastKb: 140_000, problem: '' });
  t.is(verdictLine(plateau, 'raw'), 'rss steady pid 7 (raw): warm-up end 100.0 MB, warm-up peak 146.5 MB; after: min 107.4, max 166.0, last 136.7 MB (max +13%), 6 samples');

  const leak = judgeRss('victim', samples([100_000, 102_400], [110_000, 120_000]), 100, 0.15);
  t.is(leak.problem, "grew to 117.2 MB, 17% over the warm-up's peak of 100.0 MB (at most 15%)");
  // Memory handed back is no problem, however far it falls.
  t.is(judgeRss('victim', samples([200_000], [50_000]), 100, 0.15).problem, '');
  t.is(judgeRss('victim', [...samples([100_000], []), ...samples([], [100_000], 8)], 100, 0.15).problem, 'restarted (pids 7, 8): its memory started over');
  t.is(judgeRss('victim', samples([100_000], []), 100, 0.15).problem, 'too few samples (1 in the warm-up, 0 after)');
});
