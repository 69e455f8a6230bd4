#!/usr/bin/env node
// CPU per request of `serve --workers N`, split by process (the primary first, then each worker),
// at 50 connections for 5 s (after 3 s of warm-up), non-stream, SQLite; nothing pinned. Run after
// `npm run build`: node bench/workers-cpu.mjs [N]. Alternate N=1 and N=2 a few times: the figures
// of one run on a shared machine vary.
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, prepareAccount, saturate, startGateway, stop, writeBenchConfig } from './lib.mjs';
const workers = Number(process.argv[2] ?? 2);
const simulator = await startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
const { dir, configPath } = writeBenchConfig(simulator.url);
const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir };
const key = prepareAccount(env);
const gateway = await startGateway(['serve', '--host', '127.0.0.1', '--port', '0', ...(workers > 1 ? ['--workers', String(workers)] : [])], env, undefined);
const pids = workers > 1 ? [gateway.pid, ...gateway.workers] : [gateway.pid];
await sleep(3000);
const target = { name: 'g', base: gateway.url, key, model: 'bench/chat' };
await saturate(target, { connections: 50, seconds: 3, stream: false, pid: pids });
const before = pids.map((pid) => cpuSeconds(pid));
const round = await saturate(target, { connections: 50, seconds: 5, stream: false, pid: pids });
const after = pids.map((pid) => cpuSeconds(pid));
console.log(JSON.stringify({ workers, rps: round.rps, requests: round.requests, cpuMsPerRequest: round.cpuMsPerRequest, perPidMsPerRequest: pids.map((pid, i) => ((after[i] - before[i]) * 1000 / round.requests).toFixed(3)) }));
await stop(gateway);
await stop(simulator);
