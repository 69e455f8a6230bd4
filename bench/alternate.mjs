#!/usr/bin/env node
// CPU per request of two builds, measured alternately in one sitting: on a shared VM whole
// benchmark runs drift by 20% and more between minutes, so two builds are compared round by
// round (base, head; then head, base; …), each round starting both afresh on SQLite, and the
// medians are compared. The figure is the gateway process's CPU time over the requests it
// answered at 50 connections (non-stream, then 20-chunk streams), after a warm-up. Beside it,
// the bytes and write calls per request from /proc/PID/io, which barely depend on the machine's
// load (they showed the SQLite statement journals spilling to temporary files when CPU figures
// at load 30 could not).
//
//   node bench/alternate.mjs --base /path/to/old/checkout --head /path/to/new/checkout [--rounds 3] [--seconds 8]
// With --bursts N, each round starts both builds once and makes N pairs of them: in a pair each
// build runs --seconds one-second runs (3 by default), the two taking turns run by run, while the
// other sits idle: a slow second of the machine then falls on both, and the median of the
// pairs' ratios (head ÷ base) tells a few per cent apart where whole rounds drift by 20%. But one pair of
// processes keeps its own speed for its whole life (a round once put a build 14% behind a copy
// of itself in all 12 of its pairs): give many rounds of few bursts, e.g. --bursts 3 --rounds 6.
// With --latency, a pair is --count sequential requests to each build on one connection each,
// taken in interleaved blocks of 20 (non-stream, then streamed), and the figures are the p50 of
// the whole answer and of the first streamed byte, in ms: what one client waits, where the CPU
// figure is what the machine pays. Which build starts first, and which goes first in a pair,
// alternate.
// With --simulator DIR both stacks use that build's simulator (the upstream is then the same).
// Each checkout must be built (npm run build).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent } from 'undici';
import { cpuSeconds, option, percentile, saturate, timedRequest } from './lib.mjs';

const args = process.argv.slice(2);
const builds = { base: path.resolve(option(args, 'base', '.')), head: path.resolve(option(args, 'head', '.')) };
const rounds = Number(option(args, 'rounds', '3'));
const latency = args.includes('--latency');
// Latency is only measured in pairs (interleavedLatency): --latency means --bursts 3 unless given.
const bursts = Number(option(args, 'bursts', latency ? '3' : '0'));
if (latency && bursts < 1) throw new Error('--latency is measured in pairs: give --bursts 1 or more');
const seconds = Number(option(args, 'seconds', bursts > 0 ? '3' : '8'));
const count = Number(option(args, 'count', '400'));
// The upstream both gateways call: each build's own simulator by default; with --simulator DIR,
// that build's for both, so a change in the simulator is not read as one in the gateway.
const simulatorBuild = option(args, 'simulator', undefined) && path.resolve(option(args, 'simulator', undefined));
const results = { base: [], head: [] };
/** wchar and syscw of a process (bytes handed to write calls, write calls). */
const writes = (pid) => Object.fromEntries(readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n').map((line) => line.split(': ')).filter(([name]) => name === 'wchar' || name === 'syscw').map(([name, value]) => [name, Number(value)]));
/** KB written and write calls per request while `run` ran. */
async function measured(pid, run) {
  const before = writes(pid);
  const result = await run();
  const after = writes(pid);
  return { ...result, kbWritten: (after.wchar - before.wchar) / 1024 / result.requests, writeCalls: (after.syscw - before.syscw) / result.requests };
}

/** A simulator and a gateway of one build, on a fresh SQLite database. */
async function startStack(name) {
  const lib = await import(path.join(builds[name], 'bench', 'lib.mjs'));
  const simulatorLib = simulatorBuild ? await import(path.join(simulatorBuild, 'bench', 'lib.mjs')) : lib;
  const simulator = await simulatorLib.startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
  const { dir, configPath } = lib.writeBenchConfig(simulator.url);
  const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir };
  const key = lib.prepareAccount(env);
  const gateway = await lib.startGateway(['serve', '--host', '127.0.0.1', '--port', '0'], env, 0);
  const pid = lib.listeningPid(new URL(gateway.url).port);
  const target = { base: gateway.url, key, model: 'bench/chat', headers: {} };
  return { lib, simulator, gateway, pid, target };
}

/** One whole-round measurement (no --bursts) of a running stack: CPU per request at 50 connections, non-stream then stream. */
async function measure(name, stack, burstSeconds) {
  const { lib, pid, target } = stack;
  const plain = await measured(pid, () => lib.saturate(target, { connections: 50, seconds: burstSeconds, stream: false, pid }));
  const stream = await measured(pid, () => lib.saturate(target, { connections: 50, seconds: burstSeconds, stream: true, pid }));
  if (plain.non2xx + stream.non2xx > 0) throw new Error(`${name}: ${plain.non2xx + stream.non2xx} requests failed`);
  return { plain, stream };
}

/** Requests of one latency block: few enough that both builds see the same minute of the machine. */
const blockSize = 20;

/**
 * One latency pair (--latency): `count` sequential requests to each build on its own kept-alive
 * connection, interleaved in blocks of 20 (base, head; then head, base; …), non-stream then
 * streamed. On this VM the speed of the whole machine moves by half within seconds; requests
 * taken turn about in blocks see the same machine, so the p50 of each build's samples compares
 * the builds and not the minutes. The client is this checkout's (one request code for both).
 * Beside the p50s, the gateway's CPU per request at one connection (ticks of 10 ms summed over
 * the blocks: coarse).
 */
async function interleavedLatency(stacks, order) {
  const pair = { base: {}, head: {} };
  for (const stream of [false, true]) {
    const kind = stream ? 'stream' : 'plain';
    const clients = Object.fromEntries(order.map((name) => [name, new Agent({ connections: 1, keepAliveTimeout: 60_000 })]));
    const samples = { base: [], head: [] };
    const cpu = { base: 0, head: 0 };
    for (const name of order) for (let i = 0; i < blockSize; i++) await timedRequest(stacks[name].target, clients[name], stream);
    for (let block = 0; block < Math.ceil(count / blockSize); block++) {
      for (const name of block % 2 === 0 ? order : order.slice().reverse()) {
        const before = cpuSeconds(stacks[name].pid);
        for (let i = 0; i < blockSize; i++) samples[name].push(await timedRequest(stacks[name].target, clients[name], stream));
        cpu[name] += cpuSeconds(stacks[name].pid) - before;
      }
    }
    for (const name of order) {
      await clients[name].close();
      const values = samples[name].map((sample) => (stream ? sample.ttfb : sample.total));
      pair[name][kind] = { p50: percentile(values, 50), p99: percentile(values, 99), cpuMs: (cpu[name] * 1000) / values.length };
    }
  }
  return pair;
}

/**
 * One CPU pair (--bursts without --latency): each build at 50 connections for --seconds
 * one-second runs, taken turn about (base, head; then head, base; …), non-stream then streamed;
 * CPU time, requests and writes summed per build. As with latency, runs a second apart see the
 * same machine, where whole bursts of a few seconds did not (an A/A pair of 3 s bursts spread
 * ±5%). The client is this checkout's.
 */
async function interleavedCpu(stacks, order) {
  const pair = { base: {}, head: {} };
  for (const stream of [false, true]) {
    const sums = Object.fromEntries(order.map((name) => [name, { cpuSeconds: 0, requests: 0, failed: 0, wchar: 0, syscw: 0 }]));
    for (let run = 0; run < seconds; run++) {
      for (const name of run % 2 === 0 ? order : order.slice().reverse()) {
        const { pid, target } = stacks[name];
        const cpuBefore = cpuSeconds(pid);
        const writesBefore = writes(pid);
        const result = await saturate(target, { connections: 50, seconds: 1, stream, pid });
        const writesAfter = writes(pid);
        const sum = sums[name];
        sum.cpuSeconds += cpuSeconds(pid) - cpuBefore;
        sum.requests += result.requests;
        sum.failed += result.non2xx;
        sum.wchar += writesAfter.wchar - writesBefore.wchar;
        sum.syscw += writesAfter.syscw - writesBefore.syscw;
      }
    }
    for (const name of order) {
      const sum = sums[name];
      if (sum.failed > 0) throw new Error(`${name}: ${sum.failed} requests failed`);
      pair[name][stream ? 'stream' : 'plain'] = {
        cpuMsPerRequest: (sum.cpuSeconds * 1000) / sum.requests,
        rps: sum.requests / seconds,
        kbWritten: sum.wchar / 1024 / sum.requests,
        writeCalls: sum.syscw / sum.requests,
      };
    }
  }
  return pair;
}

/** What is compared of one kind's measurement: CPU ms per request, or with --latency the p50 in ms. */
const figureOf = (measured) => (latency ? measured.p50 : measured.cpuMsPerRequest);
const describe = ({ plain, stream }) =>
  latency
    ? `p50 ms ${plain.p50.toFixed(3)} answer, ${stream.p50.toFixed(3)} first streamed byte (p99 ${plain.p99.toFixed(3)} / ${stream.p99.toFixed(3)}; CPU ms per request ${plain.cpuMs.toFixed(3)} / ${stream.cpuMs.toFixed(3)})`
    : `CPU ms per request ${plain.cpuMsPerRequest.toFixed(3)} non-stream, ${stream.cpuMsPerRequest.toFixed(3)} stream (${Math.round(plain.rps)} req/s, ${Math.round(stream.rps)} streams/s; ${plain.kbWritten.toFixed(1)} / ${stream.kbWritten.toFixed(1)} KB and ${plain.writeCalls.toFixed(1)} / ${stream.writeCalls.toFixed(1)} write calls per request)`;
const ratios = { plain: [], stream: [] };

for (let round = 0; round < rounds; round++) {
  if (bursts > 0) {
    // Both builds run side by side for the round (each idle while the other is measured) and
    // take turns within each pair (interleavedLatency, interleavedCpu).
    // Which build starts first alternates by round: identical builds measured against each
    // other read slower in the slot started second more often than not (a process's place in
    // memory and on the cores stays with it), so neither build may always hold one slot.
    const order = round % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    const stacks = {};
    for (const name of order) stacks[name] = await startStack(name);
    for (const name of order) {
      await stacks[name].lib.saturate(stacks[name].target, { connections: 50, seconds: 3, stream: false, pid: stacks[name].pid });
      await stacks[name].lib.saturate(stacks[name].target, { connections: 50, seconds: 2, stream: true, pid: stacks[name].pid });
    }
    for (let burst = 0; burst < bursts; burst++) {
      const turn = burst % 2 === 0 ? order : order.slice().reverse();
      const pair = latency ? await interleavedLatency(stacks, turn) : await interleavedCpu(stacks, turn);
      for (const name of turn) results[name].push({ plain: figureOf(pair[name].plain), stream: figureOf(pair[name].stream) });
      for (const kind of ['plain', 'stream']) ratios[kind].push(figureOf(pair.head[kind]) / figureOf(pair.base[kind]));
      console.log(`round ${round + 1} pair ${burst + 1}: base ${describe(pair.base)}\n                 head ${describe(pair.head)}`);
    }
    for (const name of ['base', 'head']) {
      await stacks[name].lib.stop(stacks[name].gateway);
      await stacks[name].lib.stop(stacks[name].simulator);
    }
    continue;
  }
  for (const name of round % 2 === 0 ? ['base', 'head'] : ['head', 'base']) {
    const stack = await startStack(name);
    await stack.lib.saturate(stack.target, { connections: 50, seconds: 3, stream: false, pid: stack.pid });
    const result = await measure(name, stack, seconds);
    results[name].push({ plain: figureOf(result.plain), stream: figureOf(result.stream) });
    console.log(`round ${round + 1} ${name}: ${describe(result)}`);
    await stack.lib.stop(stack.gateway);
    await stack.lib.stop(stack.simulator);
  }
}
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const name of ['base', 'head']) {
  console.log(`${name} median: ${median(results[name].map((r) => r.plain)).toFixed(3)} non-stream, ${median(results[name].map((r) => r.stream)).toFixed(3)} stream (${latency ? 'p50 ms of the answer, of the first streamed byte' : 'CPU ms per request'})`);
}
if (bursts > 0) {
  const lower = (values) => values.filter((ratio) => ratio < 1).length;
  console.log(`head ÷ base, median of ${ratios.plain.length} pairs: ${median(ratios.plain).toFixed(3)} non-stream (head lower in ${lower(ratios.plain)}), ${median(ratios.stream).toFixed(3)} stream (head lower in ${lower(ratios.stream)})`);
}
