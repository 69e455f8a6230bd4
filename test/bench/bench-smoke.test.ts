// CI's smoke of the benchmark: `node bench/run.mjs --smoke` (one-second runs, SQLite) must
// complete and print its table and budget check. No timing is asserted: CI machines vary.
import test from 'ava';
import { execa } from 'execa';
import path from 'node:path';
import { installRoot } from '../../src/config/load.js';

test('npm run bench (smoke) completes and prints the table', async (t) => {
  t.timeout(150_000);
  const result = await execa('node', [path.join(installRoot, 'bench', 'run.mjs'), '--smoke', '--backend', 'sqlite'], { reject: false, all: true });
  t.is(result.exitCode, 0, result.all);
  t.regex(result.stdout, /\| non-stream latency p50 \/ p99, 1 connection \(ms\) \|/);
  t.regex(result.stdout, /\| time to first streamed byte p50 \(ms\) \|/);
  t.regex(result.stdout, /\| non-stream requests\/s @ 10 connections/);
  t.regex(result.stdout, /\| added latency p50 \(ms\) \| [\d.]+ \| ≤ 1\.0 \|/);
});
