// The short chaos run inside `npm test` (the long one is `npm run chaos`): three rounds per
// backend through the same runChaos, each killing serve or the worker mid-flight, cutting
// PostgreSQL or Redis, or sending the hostile inputs, while customers top up through the
// simulated YooKassa, then checking that nothing was lost and no payment was credited twice.
// The seeds are fixed and chosen so that the three rounds inject every fault kind of the
// backend (the faults depend on the seed alone; the load's timing varies, its checks do not).
import { countRun, needing, redisUrl } from '../helpers/backends.js';
import { lossKinds } from './checks.js';
import { faultKindsOf } from './faults.js';
import { runChaos } from './run-chaos.js';

const runs = [
  { backend: 'sqlite', seed: 3 },
  { backend: 'postgres', seed: 72 },
] as const;

for (const { backend, seed } of runs) {
  // Serial: two runs at once would double the processes on a 2-core box.
  // Redis on both: two serves on one SQLite file share their rate limits through it (a second serve without it is refused).
  needing(...(backend === 'postgres' ? (['postgres', 'redis'] as const) : (['redis'] as const))).serial(`chaos: 3 rounds of kills, cuts and hostile inputs lose nothing [${backend}]`, async (t) => {
    t.timeout(240_000);
    const summary = await runChaos({ backend, rounds: 3, seed, settleMs: 20_000, redisUrl, log: (line) => t.log(line) });
    for (const kind of faultKindsOf(backend)) t.true(summary.faults[kind] > 0, `the rounds injected ${kind}`);
    t.true(summary.requests > 0 && summary.jobs > 0 && summary.payments > 0, 'load was sent, jobs were created and customers paid');
    // One comparison of every figure, so a failure shows all of them at once.
    t.deepEqual(summary.lost, Object.fromEntries(lossKinds.map((kind) => [kind, 0])), summary.details.slice(0, 20).join('\n'));
    countRun(backend);
    countRun('redis');
  });
}
