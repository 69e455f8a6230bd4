// `npm run chaos [-- --rounds N] [--seed S] [--backend sqlite|postgres]`: the chaos suite of
// test/chaos/ run long, on both backends by default (PostgreSQL + Redis when they answer on
// their standard local ports or GATEWAY_TEST_PG_URL / GATEWAY_TEST_REDIS_URL say where).
// Prints one line per round and a summary; exits 1 if anything was lost.
// `npm run chaos -- --soak [--minutes N]`: the soak instead (test/chaos/run-soak.ts): N minutes
// (20 by default) of load and hostile inputs per backend, the serve processes' RSS sampled; exits
// 1 if anything was lost or a serve process's RSS grew more than 15% past its warm-up's peak.
import { reachable } from './reachable.mjs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    seed: { type: 'string' },
    backend: { type: 'string' },
    'round-ms': { type: 'string', default: '3000' },
    'settle-ms': { type: 'string', default: '30000' },
    soak: { type: 'boolean', default: false },
    minutes: { type: 'string', default: '20' },
  },
});
const rounds = Number(values.rounds);
const minutes = Number(values.minutes);
const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seed) || !(minutes > 0)) {
  console.error('usage: npm run chaos -- [--rounds N] [--seed S] [--backend sqlite|postgres] [--round-ms MS] [--settle-ms MS]');
  console.error('       npm run chaos -- --soak [--minutes N] [--seed S] [--backend sqlite|postgres]');
  process.exit(2);
}
// The test database helper reads these at import: set them before it loads.
if (!process.env.GATEWAY_TEST_PG_URL && (await reachable(5432))) process.env.GATEWAY_TEST_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
if (!process.env.GATEWAY_TEST_REDIS_URL && (await reachable(6379))) process.env.GATEWAY_TEST_REDIS_URL = 'redis://127.0.0.1:6379';
const { runChaos } = await import('../test/chaos/run-chaos.js');
const { totalLost } = await import('../test/chaos/report.js');
const { runSoak, rssProblems } = await import('../test/chaos/run-soak.js');

const backends = values.backend ? [values.backend] : ['sqlite', 'postgres'];
let lost = 0;
for (const backend of backends) {
  if (backend !== 'sqlite' && backend !== 'postgres') {
    console.error(`unknown backend ${backend} (sqlite or postgres)`);
    process.exit(2);
  }
  if (backend === 'postgres' && (!process.env.GATEWAY_TEST_PG_URL || !process.env.GATEWAY_TEST_REDIS_URL)) {
    console.error('!!! PostgreSQL or Redis is not available: the postgres chaos run needs both (GATEWAY_TEST_PG_URL, GATEWAY_TEST_REDIS_URL)');
    lost++;
    continue;
  }
  if (!process.env.GATEWAY_TEST_REDIS_URL) {
    console.error(`!!! Redis is not available: the ${backend} chaos run needs it (GATEWAY_TEST_REDIS_URL): its two serve processes share their rate limits through it`);
    lost++;
    continue;
  }
  if (values.soak) {
    const soak = await runSoak({ backend, minutes, seed, roundMs: Number(values['round-ms']), settleMs: Number(values['settle-ms']), redisUrl: process.env.GATEWAY_TEST_REDIS_URL });
    lost += totalLost(soak.chaos) + rssProblems(soak).length;
    console.log('');
    continue;
  }
  const summary = await runChaos({
    backend,
    rounds,
    seed,
    roundMs: Number(values['round-ms']),
    settleMs: Number(values['settle-ms']),
    redisUrl: process.env.GATEWAY_TEST_REDIS_URL,
  });
  lost += totalLost(summary);
  console.log('');
}
process.exit(lost === 0 ? 0 : 1);
