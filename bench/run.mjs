#!/usr/bin/env node
// `npm run bench`: the gateway's overhead on the chat path, measured against the upstream it
// relays. `gateway simulate` (the upstream) and `gateway serve` run as separate processes,
// pinned to different cores when there are several; the same OpenAI chat request goes straight
// to the simulator ("direct") and through the gateway with every feature on (auth, scope, rate
// limit, hold and settle in the database, usage record, request log). Prints one Markdown
// table per database and a budget check; writes JSON and Markdown to bench/results/.
//
// A bare Node.js proxy (bench/floor-proxy.mjs) is measured in the same run, pinned like the
// gateway: the floor any Node.js gateway can reach on this machine today.
//
//   node bench/run.mjs [--smoke] [--rounds 3] [--backend sqlite|postgres|both] [--out DIR]
//                      [--compare name=URL@KEY [--compare-model MODEL] [--compare-header 'Name: value']…
//                       [--compare-no-stream]] [--workers 1,2]
// --workers: the gateway is measured once per value (serve --workers N); with N > 1 its CPU is
// the primary's and the workers' together, its RSS the largest worker's, and it is not pinned.
// In a --compare-header value, {upstream} is the simulator's URL (a peer that takes its
// upstream per request, as Portkey's x-portkey-custom-host). --compare-no-stream measures the
// peer's non-streaming path only (Portkey 1.15 fails every stream on Node 20).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import knex from 'knex';
import { cores, createPostgresDatabase, listeningPid, option, options, pgAdminUrl, prepareAccount, root, rssMb, saturate, sequential, startFloorProxy, startGateway, stop, writeBenchConfig } from './lib.mjs';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const outDir = path.resolve(option(args, 'out', path.join(root, 'bench', 'results')));
const plan = smoke
  ? { count: 30, warmup: 10, seconds: 1, connections: [10], rounds: 1, idleAfterMs: 300 }
  : { count: 1000, warmup: 300, seconds: 5, connections: [50, 200], rounds: Number(option(args, 'rounds', '3')), idleAfterMs: 25_000 };

/**
 * A started process's resident memory once it has sat idle for plan.idleAfterMs. V8 keeps the
 * young generation it grew while loading modules until its memory reducer runs (seen 10-40 s
 * after start): read at once, a peer may show ~20 MB that an idle one has given back. The
 * gateway does not grow it while loading (src/util/heap-growth.ts); the wait stays for peers.
 */
async function idleRss(pid) {
  await sleep(plan.idleAfterMs);
  return rssMb(pid);
}

/**
 * Runs `once` `plan.rounds` times and keeps the median round by `key` (single rounds on a
 * shared VM vary by ±30% or more); a peak memory figure is the highest of all rounds.
 */
async function medianRound(once, key) {
  const rounds = [];
  for (let round = 0; round < plan.rounds; round++) rounds.push(await once());
  const median = rounds.slice().sort((a, b) => key(a) - key(b))[Math.floor(rounds.length / 2)];
  const peaks = rounds.map((round) => round.peakRssMb).filter((value) => value !== undefined);
  return peaks.length > 0 ? { ...median, peakRssMb: Math.max(...peaks) } : median;
}

async function postgresReachable() {
  const db = knex({ client: 'pg', connection: pgAdminUrl, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000 });
  try {
    await db.raw('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await db.destroy();
  }
}

const workerCounts = option(args, 'workers', '1').split(',').map((value) => Number(value.trim()));
if (workerCounts.some((count) => !Number.isInteger(count) || count < 1)) throw new Error('--workers expects numbers of workers, e.g. 1,2');
const requestedBackend = option(args, 'backend', smoke ? 'sqlite' : 'both');
const backends = requestedBackend === 'both' ? ['sqlite', ...((await postgresReachable()) ? ['postgres'] : [])] : [requestedBackend];
const log = (message) => process.stderr.write(`${message}\n`);

/** Measures one target: latency at one connection (non-stream, stream), then saturation. */
async function measure(target, pid, { streams = true } = {}) {
  const result = { name: target.name };
  log(`  ${target.name}: 1 connection…`);
  result.latency = await medianRound(() => sequential(target, { ...plan, stream: false }), (round) => round.p50);
  result.streamLatency = streams ? await medianRound(() => sequential(target, { ...plan, stream: true }), (round) => round.p50) : undefined;
  result.saturation = {};
  for (const connections of plan.connections) {
    for (const stream of streams ? [false, true] : [false]) {
      log(`  ${target.name}: ${connections} connections, ${stream ? 'stream' : 'non-stream'}…`);
      result.saturation[`${stream ? 'stream' : 'json'}@${connections}`] = await medianRound(async () => {
        const round = await saturate(target, { connections, seconds: plan.seconds, stream, pid });
        await sleep(200);
        return round;
      }, (round) => round.rps);
    }
  }
  return result;
}

const simulator = await startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
const runs = [];
try {
  const direct = await measure({ name: 'direct', base: simulator.url, key: 'none', model: 'chat' }, undefined);
  log('bare Node.js proxy (the floor):');
  const floorProxy = await startFloorProxy(simulator.url, 'chat', 0);
  let floor;
  try {
    const idleRssMb = await idleRss(floorProxy.pid);
    floor = { ...(await measure({ name: 'floor', base: floorProxy.url, key: 'none', model: 'chat' }, floorProxy.pid)), idleRssMb };
  } finally {
    await stop(floorProxy);
  }
  for (const backend of backends) {
    for (const workers of workerCounts) {
      const label = workers === 1 ? backend : `${backend}, ${workers} workers`;
      log(`${label}:`);
      const { dir, configPath } = writeBenchConfig(simulator.url);
      const postgres = backend === 'postgres' ? await createPostgresDatabase('gw_bench') : undefined;
      const databaseUrl = postgres?.url;
      const dropDatabase = postgres?.drop;
      const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir, ...(databaseUrl ? { GATEWAY_DATABASE_URL: databaseUrl } : {}) };
      const key = prepareAccount(env);
      // Several workers are not pinned to core 0: they are there to use the other cores.
      const gateway = await startGateway(['serve', '--host', '127.0.0.1', '--port', '0', ...(workers > 1 ? ['--workers', String(workers)] : [])], env, workers > 1 ? undefined : 0);
      const pids = workers > 1 ? [gateway.pid, ...gateway.workers] : gateway.pid;
      try {
        const idleRssMb = await idleRss(pids);
        const measured = await measure({ name: `gateway (${label})`, base: gateway.url, key, model: 'bench/chat' }, pids);
        runs.push({ backend: label, workers, idleRssMb, gateway: measured, direct, floor });
      } finally {
        await stop(gateway);
        await dropDatabase?.();
      }
    }
  }
  for (const compare of options(args, 'compare')) {
    const match = /^([^=]+)=([^@]+)(?:@(.+))?$/.exec(compare);
    if (!match) throw new Error(`--compare expects name=URL@KEY, got "${compare}"`);
    log(`${match[1]}:`);
    const base = match[2].replace(/\/+$/, '').replace(/\/v1$/, '');
    const headers = Object.fromEntries(
      options(args, 'compare-header').map((header) => [header.slice(0, header.indexOf(':')).trim(), header.slice(header.indexOf(':') + 1).trim().replaceAll('{upstream}', simulator.url)]),
    );
    const pid = listeningPid(new URL(base).port);
    const idleRssMb = rssMb(pid);
    const measured = await measure({ name: match[1], base, key: match[3] ?? 'none', model: option(args, 'compare-model', 'chat'), headers }, pid, { streams: !args.includes('--compare-no-stream') });
    runs.push({ backend: `compare: ${match[1]}`, idleRssMb, gateway: measured, direct, floor });
  }
} finally {
  await stop(simulator);
}

const ms = (value) => (value === undefined ? '–' : value.toFixed(2));
const int = (value) => (value === undefined ? '–' : Math.round(value).toLocaleString('en-US'));

/** The highest RSS a measured target reached under load (MB). */
const peak = (measured) => Math.max(...Object.values(measured.saturation).map((value) => value.peakRssMb ?? 0));

/** The table: one row per measure; direct, the bare proxy (the floor), the gateway, and what the gateway adds. */
function table(run) {
  const { direct, gateway, floor } = run;
  const pair = (a, b) => `${ms(a)} / ${ms(b)}`;
  const lines = [
    `| ${run.backend} | direct | bare Node.js proxy (floor) | through ${gateway.name} | added (through − direct) |`,
    '|---|---|---|---|---|',
    `| non-stream latency p50 / p99, 1 connection (ms) | ${pair(direct.latency.p50, direct.latency.p99)} | ${pair(floor.latency.p50, floor.latency.p99)} | ${pair(gateway.latency.p50, gateway.latency.p99)} | **${pair(gateway.latency.p50 - direct.latency.p50, gateway.latency.p99 - direct.latency.p99)}** |`,
  ];
  if (gateway.streamLatency) {
    lines.push(
      `| stream (20 chunks) latency p50 / p99 (ms) | ${pair(direct.streamLatency.p50, direct.streamLatency.p99)} | ${pair(floor.streamLatency.p50, floor.streamLatency.p99)} | ${pair(gateway.streamLatency.p50, gateway.streamLatency.p99)} | ${pair(gateway.streamLatency.p50 - direct.streamLatency.p50, gateway.streamLatency.p99 - direct.streamLatency.p99)} |`,
      `| time to first streamed byte p50 (ms) | ${ms(direct.streamLatency.ttfb50)} | ${ms(floor.streamLatency.ttfb50)} | ${ms(gateway.streamLatency.ttfb50)} | **${ms(gateway.streamLatency.ttfb50 - direct.streamLatency.ttfb50)}** |`,
    );
  }
  for (const [label, key] of Object.entries(gateway.saturation).map(([key]) => [key.replace('json', 'non-stream requests/s').replace('stream@', 'streams/s@').replace('@', ' @ ') + ' connections', key])) {
    const d = direct.saturation[key];
    const f = floor.saturation[key];
    const g = gateway.saturation[key];
    lines.push(`| ${label} (p50 / p99 ms) | ${int(d?.rps)} (${pair(d?.p50, d?.p99)}) | ${int(f?.rps)} (${pair(f?.p50, f?.p99)}) | ${int(g.rps)} (${pair(g.p50, g.p99)})${g.non2xx ? ` ⚠ ${g.non2xx} errors` : ''} | |`);
  }
  const cpu = (measured) => Object.entries(measured.saturation).filter(([key]) => key in gateway.saturation).map(([key, value]) => `${key.split('@')[0] === 'json' ? 'non-stream' : 'stream'} ${ms(value.cpuMsPerRequest)}`).join(', ');
  if (run.idleRssMb !== undefined) {
    lines.push(`| CPU ms per request (at ${Object.keys(gateway.saturation).map((key) => key.split('@')[1]).filter((v, i, a) => a.indexOf(v) === i).join('/')} connections) | | ${cpu(floor)} | ${cpu(gateway)} | |`);
    lines.push(`| RSS idle / peak under load (MB) | | ${ms(floor.idleRssMb)} / ${ms(peak(floor))} | ${ms(run.idleRssMb)} / ${ms(peak(gateway))} | |`);
  }
  return lines.join('\n');
}

/** The issue's budget (one process, SQLite; PostgreSQL for its own line), measured against this run, beside the floor's figure. */
function budget(run) {
  const { gateway: g, direct: d, floor: f } = run;
  const json = (measured) => Object.entries(measured.saturation).filter(([key]) => key.startsWith('json'));
  const streams = (measured) => Object.entries(measured.saturation).filter(([key]) => key.startsWith('stream'));
  const best = (entries) => Math.max(...entries.map(([, value]) => value.rps));
  const worstRatio = (measured) => Math.max(...Object.values(measured.saturation).map((value) => value.p99 / Math.max(value.p50, 1)));
  // [name, gateway, floor, target, met]
  const checks =
    run.backend === 'postgres'
      ? [['non-stream requests/s', best(json(g)), best(json(f)), '≥ 3,000', best(json(g)) >= 3000]]
      : [
          ['added latency p50 (ms)', g.latency.p50 - d.latency.p50, f.latency.p50 - d.latency.p50, '≤ 1.0', g.latency.p50 - d.latency.p50 <= 1.0],
          ['added latency p99 (ms)', g.latency.p99 - d.latency.p99, f.latency.p99 - d.latency.p99, '≤ 3.5', g.latency.p99 - d.latency.p99 <= 3.5],
          ['added to first streamed byte (ms)', g.streamLatency.ttfb50 - d.streamLatency.ttfb50, f.streamLatency.ttfb50 - d.streamLatency.ttfb50, '≤ 1.5', g.streamLatency.ttfb50 - d.streamLatency.ttfb50 <= 1.5],
          ['non-stream requests/s', best(json(g)), best(json(f)), '≥ 5,000', best(json(g)) >= 5000],
          ['20-chunk streams/s', best(streams(g)), best(streams(f)), '≥ 3,000', best(streams(g)) >= 3000],
          ['peak RSS under load (MB)', peak(g), peak(f), '≤ 150', peak(g) <= 150],
          ['idle RSS (MB)', run.idleRssMb, f.idleRssMb, '≤ 80', run.idleRssMb <= 80],
          ['p99 / p50 at saturation (worst)', worstRatio(g), worstRatio(f), '≤ 5', worstRatio(g) <= 5],
        ];
  const show = (value) => (value === undefined ? '–' : value >= 100 ? int(value) : ms(value));
  return [
    '| budget | gateway | target | | the floor (bare proxy) |',
    '|---|---|---|---|---|',
    ...checks.map(([name, value, floorValue, target, ok]) => `| ${name} | ${show(value)} | ${target} | ${ok ? 'met' : '**missed**'} | ${show(floorValue)} |`),
  ].join('\n');
}

const date = new Date().toISOString().slice(0, 10);
const machine = `${hostname()}, ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}`;
let load = '';
try {
  load = execFileSync('uptime', { encoding: 'utf8' }).trim();
} catch {
  // no uptime: no load figure
}
const header = [
  `# Benchmark ${date}${smoke ? ' (smoke: durations too short for figures)' : ''}`,
  '',
  `Machine: ${machine}. ${simulator.pinned ? 'Gateway pinned to core 0, simulator to core 1' : 'Processes not pinned'}; the load generator runs in this process${cores <= 2 ? ' and shares a core with them' : ''}. Load before the run: ${load || 'unknown'}.`,
  `Latency: ${plan.count} sequential requests after ${plan.warmup} warm-up on one kept-alive connection; saturation: autocannon for ${plan.seconds} s per line; each line is the median of ${plan.rounds} rounds (peak RSS: the highest; idle RSS: ${plan.idleAfterMs / 1000} s after start, before any request). Stream = 20 chunks (\`[[sim:tokens=20]]\`).`,
].join('\n');
let markdown = [header, ...runs.map((run) => `\n## ${run.backend}\n\n${table(run)}${run.backend.startsWith('compare') || run.workers > 1 ? '' : `\n\n${budget(run)}`}`)].join('\n');
/** With several --workers values: requests/s and CPU per request side by side, beside the floor. */
function workersTable() {
  const measured = runs.filter((run) => run.workers !== undefined);
  if (new Set(measured.map((run) => run.workers)).size < 2) return '';
  const floor = measured[0].floor;
  const best = (m, kind) => Math.max(...Object.entries(m.saturation).filter(([key]) => key.startsWith(kind)).map(([, value]) => value.rps));
  const cpuAt = (m, kind) => Object.entries(m.saturation).filter(([key]) => key.startsWith(kind)).map(([key, value]) => `${ms(value.cpuMsPerRequest)} @ ${key.split('@')[1]}`).join(', ');
  return [
    '\n## Workers\n',
    '| target | non-stream requests/s (best) | streams/s (best) | CPU ms per non-stream request | CPU ms per stream |',
    '|---|---|---|---|---|',
    `| bare Node.js proxy (floor, 1 process) | ${int(best(floor, 'json'))} | ${int(best(floor, 'stream'))} | ${cpuAt(floor, 'json')} | ${cpuAt(floor, 'stream')} |`,
    ...measured.map((run) => `| gateway (${run.backend}) | ${int(best(run.gateway, 'json'))} | ${int(best(run.gateway, 'stream'))} | ${cpuAt(run.gateway, 'json')} | ${cpuAt(run.gateway, 'stream')} |`),
  ].join('\n');
}
markdown += workersTable();
process.stdout.write(`${markdown}\n`);
mkdirSync(outDir, { recursive: true });
if (!smoke) {
  const base = path.join(outDir, `${date}-${hostname()}`);
  writeFileSync(`${base}.json`, JSON.stringify({ date, machine, load, plan, runs }, null, 2));
  writeFileSync(`${base}.md`, `${markdown}\n`);
  writeFileSync(path.join(outDir, 'latest.md'), `${markdown}\n`);
  log(`written: ${base}.json, ${base}.md, ${path.join(outDir, 'latest.md')}`);
}
const failures = runs.flatMap((run) => Object.values(run.gateway.saturation).filter((value) => value.non2xx > 0));
if (failures.length > 0) {
  log('some requests failed during the run (see ⚠ in the table)');
  process.exitCode = 1;
}
