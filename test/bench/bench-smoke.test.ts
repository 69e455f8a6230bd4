// CI's smoke of the benchmark: `node bench/run.mjs --smoke` (one-second runs, SQLite) must
// complete and print its table and budget check, beside the bare proxy's floor and a peer
// given with --compare. No timing is asserted: CI machines vary.
import test from 'ava';
import { execa } from 'execa';
import path from 'node:path';
import { installRoot } from '../../src/config/load.js';
import { startGateway, stop } from '../../bench/lib.mjs';

test('npm run bench (smoke) completes and prints the table, the floor and a compared peer', async (t) => {
  t.timeout(180_000);
  // The peer: a second simulator, compared with a header of its own (as Portkey needs).
  const peer = await startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {});
  t.teardown(() => stop(peer));
  const result = await execa(
    'node',
    [path.join(installRoot, 'bench', 'run.mjs'), '--smoke', '--backend', 'sqlite', '--compare', `peer=${peer.url}/v1@sk-peer`, '--compare-header', 'x-peer-upstream: {upstream}/v1'],
    { reject: false, all: true },
  );
  t.is(result.exitCode, 0, result.all);
  t.regex(result.stdout, /\| sqlite \| direct \| bare Node\.js proxy \(floor\) \| through gateway \(sqlite\) \| added \(through − direct\) \|/);
  t.regex(result.stdout, /\| non-stream latency p50 \/ p99, 1 connection \(ms\) \|/);
  t.regex(result.stdout, /\| time to first streamed byte p50 \(ms\) \|/);
  t.regex(result.stdout, /\| non-stream requests\/s @ 10 connections/);
  // Both figures are differences from the direct call, so noise can make either negative
  // (CI once measured the bare proxy 1.23 ms faster than going direct).
  t.regex(result.stdout, /\| added latency p50 \(ms\) \| -?[\d.]+ \| ≤ 1\.0 \| (met|\*\*missed\*\*) \| -?[\d.]+ \|/);
  t.regex(result.stdout, /## compare: peer\n\n\| compare: peer \| direct \| bare Node\.js proxy \(floor\) \| through peer \|/);
  // The peer's process was found by its port: its CPU and memory are in the table.
  t.regex(result.stdout, /\| CPU ms per request \(at 10 connections\) \| \| non-stream [\d.]+, stream [\d.]+ \| non-stream [\d.]+, stream [\d.]+ \| \|\n\| RSS idle \/ peak under load \(MB\) \| \| [\d.]+ \/ [\d.]+ \| [\d.]+ \/ [\d.]+ \| \|\n*$/);
});
