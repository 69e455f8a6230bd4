// Shared pieces of the benchmarks: starting `gateway simulate` and `gateway serve` as their own
// processes (pinned to cores with taskset when the machine has several), a bench account and
// key made through the CLI, requests at one connection, autocannon runs, and what the kernel
// says of a process (CPU time, resident memory).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import knex from 'knex';
import { Agent, request } from 'undici';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const bin = path.join(root, 'bin', 'gateway');
export const cores = availableParallelism();
export const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Clock ticks per second of /proc/PID/stat times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

export function option(args, name, fallback) {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
}

export function options(args, name) {
  const values = [];
  args.forEach((arg, index) => arg === `--${name}` && values.push(args[index + 1]));
  return values;
}

/** Starts `gateway <argv> --json` (on `core` when pinning is possible); resolves with its URL and pid once it prints them. */
export function startGateway(argv, env, core) {
  return startPrinting(bin, [...argv, '--json'], env, core, `gateway ${argv[0]}`);
}

/** Starts the bare Node.js proxy of bench/floor-proxy.mjs in front of `upstreamUrl` (on `core`). */
export function startFloorProxy(upstreamUrl, model, core) {
  return startPrinting(process.execPath, [path.join(root, 'bench', 'floor-proxy.mjs'), upstreamUrl, model], {}, core, 'floor proxy');
}

/** Starts a program that prints a JSON line with its url and pid once it listens. */
function startPrinting(program, argv, env, core, name) {
  const pinned = hasTaskset && cores >= 2 && core !== undefined;
  const child = spawn(pinned ? 'taskset' : program, pinned ? ['-c', String(core), program, ...argv] : argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.resume(); // the request log: read (so the gateway pays for writing it) and dropped
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, pid: JSON.parse(line).pid, url: JSON.parse(line).url, workers: JSON.parse(line).workers, pinned });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}: ${out}`)));
  });
}

export function stop(processInfo) {
  return new Promise((resolve) => {
    if (processInfo.child.exitCode !== null) return resolve();
    processInfo.child.once('exit', () => resolve());
    processInfo.child.kill('SIGTERM');
  });
}

export function cli(argv, env) {
  return execFileSync(bin, argv, { env: { ...process.env, ...env }, encoding: 'utf8' });
}

/** A data dir and config for a gateway whose only upstream is the simulator process at `simUrl`. */
export function writeBenchConfig(simUrl, extra = '') {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
  const configPath = path.join(dir, 'bench.yaml');
  writeFileSync(
    configPath,
    [
      'rate_limit: { requests_per_minute: 1000000 }',
      'log: { level: info }',
      'providers:',
      `  upstream: { kind: openai-compatible, base_url: "${simUrl}/v1" }`,
      'models:',
      '  - id: bench/chat',
      '    name: Bench chat',
      '    type: text',
      '    route: { provider: upstream, model: chat }',
      '    pricing: { per_1m_input_tokens: "10", per_1m_output_tokens: "40" }',
      '    capabilities: { max_output_tokens: 4096 }',
      extra,
    ].join('\n'),
  );
  return { dir, configPath };
}

/** Migrates, creates the bench account (a large balance) and an unlimited key. */
export function prepareAccount(env) {
  cli(['migrate'], env);
  cli(['accounts', 'create', 'bench'], env);
  cli(['balance', 'topup', '--account', 'bench', '--amount', '10000000'], env);
  return JSON.parse(cli(['keys', 'create', '--account', 'bench', '--rpm', '1000000', '--json'], env)).key;
}

/** The headers of a chat request to `target` (its own extra headers last: a peer's routing headers). */
export function chatHeaders(target) {
  return { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', ...target.headers };
}

export function chatBody(model, stream) {
  return JSON.stringify({
    model,
    max_tokens: 256,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    messages: [{ role: 'user', content: 'Say something short [[sim:tokens=20]]' }],
  });
}

export const percentile = (values, p) => {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** One chat request to `target` over `dispatcher`, read to its end: ms to the whole answer and to its first byte. */
export async function timedRequest(target, dispatcher, stream) {
  const started = performance.now();
  const response = await request(`${target.base}/v1/chat/completions`, {
    method: 'POST',
    dispatcher,
    headers: chatHeaders(target),
    body: chatBody(target.model, stream),
  });
  let firstByte;
  for await (const chunk of response.body) firstByte ??= performance.now();
  if (response.statusCode !== 200) throw new Error(`${target.name}: status ${response.statusCode}`);
  return { total: performance.now() - started, ttfb: firstByte - started };
}

/** `count` sequential requests on one kept-alive connection after `warmup`: p50/p99 of the total and of the first byte. */
export async function sequential(target, { count, warmup, stream }) {
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  for (let i = 0; i < warmup; i++) await timedRequest(target, dispatcher, stream);
  const samples = [];
  for (let i = 0; i < count; i++) samples.push(await timedRequest(target, dispatcher, stream));
  await dispatcher.close();
  const totals = samples.map((sample) => sample.total);
  const ttfbs = samples.map((sample) => sample.ttfb);
  return { p50: percentile(totals, 50), p99: percentile(totals, 99), ttfb50: percentile(ttfbs, 50), ttfb99: percentile(ttfbs, 99) };
}

/** CPU seconds (user + system) a process has used, from /proc; of all of them for a list (a primary and its workers). */
export function cpuSeconds(pid) {
  if (Array.isArray(pid)) {
    const each = pid.map((one) => cpuSeconds(one));
    return each.includes(undefined) ? undefined : each.reduce((sum, value) => sum + value, 0);
  }
  if (!pid || !existsSync(`/proc/${pid}/stat`)) return undefined;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** The pid of the process listening on a loopback port (from `ss`), so a peer started by hand gets CPU and memory figures too. */
export function listeningPid(port) {
  try {
    const match = /pid=(\d+)/.exec(execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory (MB); for a list, the largest process's (the figure per worker). */
export function rssMb(pid) {
  if (Array.isArray(pid)) return Math.max(...pid.map((one) => rssMb(one) ?? 0));
  if (!pid || !existsSync(`/proc/${pid}/status`)) return undefined;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : undefined;
}

/** autocannon at `connections` for `seconds`: requests/s, latency p50/p99, errors; CPU ms per request and peak RSS of `pid`. */
export async function saturate(target, { connections, seconds, stream, pid }) {
  const cpuBefore = cpuSeconds(pid);
  let peakRss = rssMb(pid) ?? 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid) ?? 0)), 100);
  const result = await autocannon({
    url: `${target.base}/v1/chat/completions`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: chatHeaders(target),
    body: chatBody(target.model, stream),
  });
  clearInterval(sampler);
  const cpuAfter = cpuSeconds(pid);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    requests,
    cpuMsPerRequest: cpuBefore !== undefined && cpuAfter !== undefined && requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / requests : undefined,
    peakRssMb: pid ? peakRss : undefined,
  };
}

export const pgAdminUrl = process.env.GATEWAY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh PostgreSQL database for one run: its URL and how to drop it. */
export async function createPostgresDatabase(prefix) {
  const name = `${prefix}_${Date.now()}`;
  const admin = knex({ client: 'pg', connection: pgAdminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(pgAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = knex({ client: 'pg', connection: pgAdminUrl, pool: { min: 0, max: 1 } });
      await cleanup.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.destroy();
    },
  };
}
