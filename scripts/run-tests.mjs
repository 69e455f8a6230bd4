#!/usr/bin/env node
// `npm test`: builds (the CLI tests run the compiled binary), points the storage tests at
// PostgreSQL and Redis when they answer on their standard local ports, runs ava, then prints
// how many tests ran on each backend and one closing line "N passed, N failed".
// GATEWAY_TEST_REQUIRE_BACKENDS=1 (set by .ci/run) turns a missing backend into a failure.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { reachable } from './reachable.mjs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const env = { ...process.env };

const missing = [];
if (!env.GATEWAY_TEST_PG_URL) {
  if (await reachable(5432)) env.GATEWAY_TEST_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
  else missing.push('PostgreSQL (set GATEWAY_TEST_PG_URL or start it on 127.0.0.1:5432)');
}
if (!env.GATEWAY_TEST_REDIS_URL) {
  if (await reachable(6379)) env.GATEWAY_TEST_REDIS_URL = 'redis://127.0.0.1:6379';
  else missing.push('Redis (set GATEWAY_TEST_REDIS_URL or start it on 127.0.0.1:6379)');
}
for (const name of missing) console.error(`\n!!! ${name} is not available: its tests will NOT run.\n`);
if (missing.length > 0 && env.GATEWAY_TEST_REQUIRE_BACKENDS === '1') {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

console.error('building…');
const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const reportDir = mkdtempSync(path.join(tmpdir(), 'gw-test-report-'));
env.GATEWAY_TEST_REPORT_DIR = reportDir;
const ava = spawn('npx', ['ava', ...process.argv.slice(2)], { cwd: root, env, stdio: ['inherit', 'pipe', 'pipe'] });
let output = '';
for (const stream of [ava.stdout, ava.stderr]) {
  stream.on('data', (chunk) => {
    output += chunk;
    (stream === ava.stdout ? process.stdout : process.stderr).write(chunk);
  });
}
const code = await new Promise((resolve) => ava.on('close', resolve));

// Count from the per-test lines (ava's summary omits the pass count when something failed).
const lines = output.split('\n').map((line) => line.trim());
const passed = lines.filter((line) => line.startsWith('✔') && !line.includes('[expected fail]')).length;
const count = (pattern) => {
  const match = pattern.exec(output);
  return match ? Number(match[1]) : 0;
};
const failed =
  lines.filter((line) => line.startsWith('✘')).length +
  count(/(\d+) uncaught exceptions?/) +
  count(/(\d+) unhandled rejections?/) +
  count(/(\d+) tests? remained pending/);
const skipped = count(/(\d+) tests? skipped/);
const todo = count(/(\d+) tests? todo/);
const knownFailures = count(/(\d+) known failures?/);

const perBackend = {};
for (const file of readdirSync(reportDir)) {
  for (const backend of readFileSync(path.join(reportDir, file), 'utf8').split('\n').filter(Boolean)) {
    perBackend[backend] = (perBackend[backend] ?? 0) + 1;
  }
}
rmSync(reportDir, { recursive: true, force: true });
console.log(`\nbackend tests run: ${['sqlite', 'postgres', 'redis'].map((b) => `${b} ${perBackend[b] ?? 0}`).join(', ')}`);
if (skipped || todo || knownFailures) console.log(`${skipped} skipped, ${todo} todo, ${knownFailures} known failures`);
// ava exits non-zero on any failure even when its summary has no count for it.
const failures = failed === 0 && code !== 0 ? 1 : failed;
console.log(`${passed} passed, ${failures} failed`);
process.exit(code === 0 && failures === 0 ? 0 : 1);
