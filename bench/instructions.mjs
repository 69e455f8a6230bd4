#!/usr/bin/env node
// Instructions per request of the gateway process, counted by valgrind's callgrind: unlike CPU
// time, an instruction count does not depend on what else the machine is doing, so two builds
// can be compared on a busy, shared VM where CPU-time medians drift by 20% and more.
// The gateway runs under callgrind (50-100× slower, so few requests); after a warm-up the
// counters are zeroed (callgrind_control --zero), `count` sequential requests are sent, and the
// counters are dumped; the process's idle rate (its timers), measured for as long right after,
// is taken away; what is left, divided by `count`, is the figure.
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
// Whatever happens below, neither the gateway under valgrind nor the simulator outlives this script.
process.once('exit', () => {
  child.kill('SIGKILL');
  simulator.child.kill('SIGKILL');
});
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

/** Instructions the gateway ran since the last zero (callgrind_control --dump writes them to a new file). */
function dumpInstructions() {
  execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
  // callgrind.<pid>.<n>: the n-th dump (callgrind.<pid> itself is written only at exit).
  const dumps = readdirSync(dir).filter((name) => /^callgrind\.\d+\.\d+$/.test(name));
  const newest = dumps.sort((a, b) => Number(a.split('.').at(-1)) - Number(b.split('.').at(-1))).at(-1);
  return Number(/^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(path.join(dir, newest), 'utf8'))[1]);
}

await send(warmup);
// Let the batched request log and usage records of the warm-up land before counting.
await sleep(2_000);
execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
let started = performance.now();
await send(count);
await sleep(2_000); // the counted requests' batched writes, as the warm-up's
const busy = { instructions: dumpInstructions(), ms: performance.now() - started };
// The process's own timers (heartbeats, cache refreshes) run per second, not per request, and
// the busy phase lasts longer on a loaded machine: their rate is measured idle, for as long,
// and taken away.
execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
started = performance.now();
await sleep(busy.ms);
const idle = { instructions: dumpInstructions(), ms: performance.now() - started };
const background = (idle.instructions / idle.ms) * busy.ms;
console.log(
  JSON.stringify({
    build,
    stream,
    count,
    instructionsPerRequest: Math.round((busy.instructions - background) / count),
    rawPerRequest: Math.round(busy.instructions / count),
    busySeconds: Math.round(busy.ms / 1000),
    idleInstructionsPerSecond: Math.round(idle.instructions / (idle.ms / 1000)),
  }),
);
child.kill('SIGKILL');
await lib.stop(simulator);
