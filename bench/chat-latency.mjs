#!/usr/bin/env node
// Added latency of the gateway on the chat path, one connection, sequential requests:
// the same OpenAI chat request sent straight to the simulator and through the gateway
// (all features on: auth, scope, rate limit, hold and settle in the database, usage record,
// request log). Starts `gateway simulate` and `gateway serve` as separate processes.
//   node bench/chat-latency.mjs [--requests 2000] [--database sqlite|postgres://…]
// (The full benchmark of the performance issue will replace this quick probe.)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = path.join(root, 'bin', 'gateway');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const requests = Number(option('requests', '2000'));
const database = option('database', 'sqlite');

function start(argv, env) {
  const child = spawn(bin, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, url: JSON.parse(line).url });
    });
    child.once('exit', (code) => reject(new Error(`${argv[0]} exited ${code}`)));
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
const sim = await start(['simulate', '--port', '0', '--json'], {});
const configPath = path.join(dir, 'bench.yaml');
writeFileSync(
  configPath,
  `rate_limit: { requests_per_minute: 1000000 }\nlog: { level: warn }\nproviders:\n  upstream: { kind: openai, base_url: "${sim.url}/v1" }\nmodels:\n  - id: bench/chat\n    name: Bench\n    type: text\n    route: { provider: upstream, model: chat }\n    pricing: { per_1m_input_tokens: "10", per_1m_output_tokens: "40" }\n    capabilities: { max_output_tokens: 4096 }\n`,
);
const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir, ...(database === 'sqlite' ? {} : { GATEWAY_DATABASE_URL: database }) };
execFileSync(bin, ['migrate'], { env: { ...process.env, ...env } });
execFileSync(bin, ['accounts', 'create', 'bench'], { env: { ...process.env, ...env } });
execFileSync(bin, ['balance', 'topup', '--account', 'bench', '--amount', '1000000'], { env: { ...process.env, ...env } });
const key = JSON.parse(execFileSync(bin, ['keys', 'create', '--account', 'bench', '--json'], { env: { ...process.env, ...env } })).key;
const gateway = await start(['serve', '--port', '0', '--json'], env);

const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
async function once(base, stream) {
  const started = performance.now();
  const response = await request(`${base}/v1/chat/completions`, {
    method: 'POST',
    dispatcher,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: base === sim.url ? 'chat' : 'bench/chat', max_tokens: 256, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: 'user', content: 'Say something short' }] }),
  });
  let firstByte;
  for await (const chunk of response.body) firstByte ??= performance.now();
  if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
  return { total: performance.now() - started, ttfb: firstByte - started };
}

const percentile = (values, p) => values.slice().sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const rows = [];
for (const stream of [false, true]) {
  const results = {};
  for (const [name, base] of [['direct', sim.url], ['gateway', gateway.url]]) {
    for (let i = 0; i < 200; i++) await once(base, stream); // warm up
    const samples = [];
    for (let i = 0; i < requests; i++) samples.push(await once(base, stream));
    results[name] = { p50: percentile(samples.map((s) => s.total), 50), p99: percentile(samples.map((s) => s.total), 99), ttfb50: percentile(samples.map((s) => s.ttfb), 50) };
  }
  rows.push({
    path: stream ? 'stream (20 chunks)' : 'non-stream',
    direct_p50_ms: results.direct.p50.toFixed(3),
    gateway_p50_ms: results.gateway.p50.toFixed(3),
    added_p50_ms: (results.gateway.p50 - results.direct.p50).toFixed(3),
    added_p99_ms: (results.gateway.p99 - results.direct.p99).toFixed(3),
    added_first_byte_p50_ms: (results.gateway.ttfb50 - results.direct.ttfb50).toFixed(3),
  });
}
console.table(rows);
console.log(JSON.stringify({ database: database === 'sqlite' ? 'sqlite' : 'postgres', requests, rows }));
gateway.child.kill('SIGTERM');
sim.child.kill('SIGTERM');
await dispatcher.close();
