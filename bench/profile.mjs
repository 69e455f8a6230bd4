#!/usr/bin/env node
// CPU profile of the gateway on the chat path: `gateway serve` under `node --cpu-prof` behind
// autocannon for a few seconds, then a summary of where its CPU went (self time by function,
// and by file). Open the .cpuprofile in Chrome DevTools or speedscope for a flame graph.
//
//   node bench/profile.mjs [--seconds 10] [--connections 20] [--stream] [--database postgres://…]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bin, cores, hasTaskset, option, prepareAccount, saturate, startGateway, stop, writeBenchConfig } from './lib.mjs';

const args = process.argv.slice(2);
const seconds = Number(option(args, 'seconds', '10'));
const connections = Number(option(args, 'connections', '20'));
const stream = args.includes('--stream');
const database = option(args, 'database', undefined);

const simulator = await startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
const { dir, configPath } = writeBenchConfig(simulator.url);
const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir, ...(database ? { GATEWAY_DATABASE_URL: database } : {}) };
const key = prepareAccount(env);
const profileDir = mkdtempSync(path.join(tmpdir(), 'gw-prof-'));
// Pinned to one core like `npm run bench` (its threads share that core, as they do there).
const serveArgs = [process.execPath, '--cpu-prof', `--cpu-prof-dir=${profileDir}`, bin, 'serve', '--host', '127.0.0.1', '--port', '0', '--json'];
const pinned = hasTaskset && cores >= 2;
const child = spawn(pinned ? 'taskset' : serveArgs[0], pinned ? ['-c', '0', ...serveArgs] : serveArgs.slice(1), {
  env: { ...process.env, ...env },
  stdio: ['ignore', 'pipe', 'pipe'],
});
child.stderr.resume();
const url = await new Promise((resolve) => {
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line).url);
  });
});
const target = { name: 'gateway', base: url, key, model: 'bench/chat' };
await saturate(target, { connections, seconds: 2, stream }); // warm-up, not profiled apart
const result = await saturate(target, { connections, seconds, stream, pid: child.pid });
await stop({ child });
await stop(simulator);

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfTicks = new Map();
for (const sample of profile.samples) selfTicks.set(sample, (selfTicks.get(sample) ?? 0) + 1);
const total = profile.samples.length;
const byFunction = new Map();
const byFile = new Map();
/** Where a frame's code lives (project file, package path or native) and its display name. */
function describe(frame) {
  const where = frame.url ? frame.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'node_modules/').replace(/.*\/dist\//, '') : '(native)';
  return { where, name: `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}` };
}
for (const [id, ticks] of selfTicks) {
  const { where, name } = describe(byId.get(id).callFrame);
  byFunction.set(name, (byFunction.get(name) ?? 0) + ticks);
  const group = where.startsWith('node_modules/') ? where.split('/').slice(0, where.includes('/@') ? 3 : 2).join('/') : where;
  byFile.set(group, (byFile.get(group) ?? 0) + ticks);
}
// Inclusive time: a sample counts once for every distinct function on its stack (what a
// function and everything it called cost: where the hot path's time goes by step).
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const inclusive = new Map();
for (const [id, ticks] of selfTicks) {
  const seen = new Set();
  for (let current = id; current !== undefined; current = parentOf.get(current)) {
    const frame = byId.get(current).callFrame;
    if (!frame.url.includes('/src/') && !frame.url.includes('node_modules/')) continue;
    const { name } = describe(frame);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + ticks);
  }
}
const top = (map, count) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, ticks]) => `${((ticks / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
process.stdout.write(`${result.requests} requests, ${result.rps.toFixed(0)}/s, CPU ${result.cpuMsPerRequest?.toFixed(2)} ms per request (${stream ? 'stream' : 'non-stream'}, ${connections} connections)\n`);
process.stdout.write(`profile: ${path.join(profileDir, file)}\n\nby file or package (self time):\n${top(byFile, 25).join('\n')}\n\nby function (self time):\n${top(byFunction, 30).join('\n')}\n\nby function, with what it called (the project and its packages):\n${top(inclusive, 30).join('\n')}\n`);
