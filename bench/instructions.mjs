#!/usr/bin/env node
// Instructions per request of the gateway process, counted by valgrind's callgrind: unlike CPU
// time, an instruction count does not depend on what else the machine is doing, so two builds
// can be compared on a busy, shared VM where CPU-time medians drift by 20% and more.
// The gateway runs under callgrind (50-100× slower, so few requests); after a warm-up the
// counters are zeroed (callgrind_control --zero), `count` sequential requests are sent, and the
// counters are dumped: total instructions / count. JIT timing makes single runs differ by ~1%.
//
//   node bench/instructions.mjs [--build DIR] [--count 300] [--warmup 300] [--stream]
// DIR (default: this checkout) must be built (npm run build). Needs valgrind (Debian: valgrind).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { option } from './lib.mjs';

const args = process.argv.slice(2);
const build = path.resolve(option(args, 'build', path.join(path.dirname(new URL(import.meta.url).pathname), '..')));
const count = Number(option(args, 'count', '300'));
const warmup = Number(option(args, 'warmup', '300'));
const stream = args.includes('--stream');
const lib = await import(path.join(build, 'bench', 'lib.mjs'));

const simulator = await lib.startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
const { dir, configPath } = lib.writeBenchConfig(simulator.url);
const env = { ...process.env, GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir };
const key = lib.prepareAccount(env);
const child = spawn(
  'valgrind',
  ['--tool=callgrind', `--callgrind-out-file=${dir}/callgrind.%p`, '--dump-instr=no', '--collect-jumps=no', process.execPath, path.join(build, 'bin', 'gateway'), 'serve', '--host', '127.0.0.1', '--port', '0', '--json'],
  { env, stdio: ['ignore', 'pipe', 'pipe'] },
);
child.stderr.resume();
const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line).url);
  });
  child.once('exit', (code) => reject(new Error(`gateway under valgrind exited ${code}: ${out}`)));
});
const target = { base: url, key, model: 'bench/chat', headers: {} };

async function send(n) {
  for (let index = 0; index < n; index++) {
    const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: lib.chatHeaders(target), body: lib.chatBody('bench/chat', stream) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`request failed: ${response.status}`);
  }
}

await send(warmup);
// Let the batched request log and usage records of the warm-up land before counting.
await sleep(2_000);
execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
await send(count);
await sleep(2_000); // the counted requests' batched writes, as the warm-up's
execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
const dumps = readdirSync(dir).filter((name) => name.startsWith('callgrind.')).sort();
const last = readFileSync(path.join(dir, dumps.at(-1)), 'utf8');
const total = Number(/^(?:summary|totals):\s+(\d+)/m.exec(last)[1]);
console.log(JSON.stringify({ build, stream, count, instructionsPerRequest: Math.round(total / count) }));
child.kill('SIGKILL');
await lib.stop(simulator);
