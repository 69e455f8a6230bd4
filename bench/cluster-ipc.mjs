#!/usr/bin/env node
// The cost of one shared-state call of a `serve --workers N` worker (src/process/cluster-state.ts):
// a rate-limit check answered by the primary over cluster IPC, sequentially and 50 at a time,
// with the CPU both processes spent per call. Run after `npm run build`: node bench/cluster-ipc.mjs
import cluster from 'node:cluster';
import path from 'node:path';
import { root } from './lib.mjs';

const { SharedState, ClusterClient, isStateCall } = await import(path.join(root, 'dist', 'src', 'process', 'cluster-state.js'));
const calls = 20_000;

if (cluster.isPrimary) {
  const state = new SharedState();
  const worker = cluster.fork();
  let primaryCpuAtStart;
  worker.on('message', (message) => {
    if (isStateCall(message)) void state.answer(worker, message);
    else if (message === 'measuring') primaryCpuAtStart = process.cpuUsage();
    else if (message?.result) {
      const cpu = process.cpuUsage(primaryCpuAtStart);
      const primaryUs = (cpu.user + cpu.system) / (2 * calls);
      process.stdout.write(`${JSON.stringify({ ...message.result, primary_cpu_us_per_call: Number(primaryUs.toFixed(1)) })}\n`);
    }
  });
  worker.on('exit', () => process.exit(0));
} else {
  const limiter = new ClusterClient().rateLimiter();
  for (let i = 0; i < 2_000; i++) await limiter.consume(`k${i % 100}`, 1e9); // warm-up
  process.send('measuring');
  const cpuAtStart = process.cpuUsage();
  let started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await limiter.consume(`k${i % 100}`, 1e9);
  const sequentialUs = Number(process.hrtime.bigint() - started) / calls / 1000;
  started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => limiter.consume(`k${j}`, 1e9)));
  const concurrentUs = Number(process.hrtime.bigint() - started) / calls / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  process.send({
    result: {
      sequential_us_per_call: Number(sequentialUs.toFixed(1)),
      fifty_at_a_time_us_per_call: Number(concurrentUs.toFixed(1)),
      worker_cpu_us_per_call: Number(((cpu.user + cpu.system) / (2 * calls)).toFixed(1)),
    },
  });
  setTimeout(() => process.exit(0), 100);
}
