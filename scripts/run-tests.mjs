#!/usr/bin/env node
// `npm test`: builds (the suites that start processes run the compiled binary), points the storage tests at
// PostgreSQL and Redis when they answer on their standard local ports, runs ava, then prints
// how many tests ran on each backend and one closing line "N passed, N failed".
// A test whose backend is missing is listed by ava as "- [skip] … (SKIPPED: … is not set)".
// GATEWAY_TEST_REQUIRE_BACKENDS=1 (set by .ci/run) fails the run when SQLite, PostgreSQL or
// Redis ran no test at all. A variable set to the empty string (GATEWAY_TEST_PG_URL=) means
// "run without it": it is not looked for on its standard port.
// --fast (`npm run test:fast`): only the in-process suites, without building (no dist/ needed);
// --processes (`npm run test:processes`): only the suites that start processes (scripts/test-suites.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { reachable } from './reachable.mjs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const fast = argv.includes('--fast');
const processesOnly = argv.includes('--processes');
const avaArgs = argv.filter((arg) => arg !== '--fast' && arg !== '--processes');
const avaConfig = fast ? ['--config', 'ava.fast.config.mjs'] : processesOnly ? ['--config', 'ava.processes.config.mjs'] : [];
const env = { ...process.env };
const requireBackends = env.GATEWAY_TEST_REQUIRE_BACKENDS === '1';

const missing = [];
if (env.GATEWAY_TEST_PG_URL === undefined && (await reachable(5432))) env.GATEWAY_TEST_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
if (!env.GATEWAY_TEST_PG_URL) missing.push('PostgreSQL (set GATEWAY_TEST_PG_URL or start it on 127.0.0.1:5432)');
if (env.GATEWAY_TEST_REDIS_URL === undefined && (await reachable(6379))) env.GATEWAY_TEST_REDIS_URL = 'redis://127.0.0.1:6379';
if (!env.GATEWAY_TEST_REDIS_URL) missing.push('Redis (set GATEWAY_TEST_REDIS_URL or start it on 127.0.0.1:6379)');
for (const name of missing) console.error(`\n!!! ${name} is not available: its tests are SKIPPED${requireBackends ? ' and the run FAILS (GATEWAY_TEST_REQUIRE_BACKENDS=1)' : ''}.\n`);

if (!fast) {
  console.error('building…');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit', env });
  if (build.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  // The tests themselves are type-checked too (tsconfig.tests.json): ava runs them through tsx,
  // which strips types without checking them, so a wrong call in a test would otherwise pass.
  console.error('type-checking the tests…');
  const typecheck = spawnSync('npx', ['tsc', '-p', 'tsconfig.tests.json'], { cwd: root, stdio: 'inherit', env });
  if (typecheck.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

const reportDir = mkdtempSync(path.join(tmpdir(), 'gw-test-report-'));
env.GATEWAY_TEST_REPORT_DIR = reportDir;
const ava = spawn('npx', ['ava', ...avaConfig, ...avaArgs], { cwd: root, env, stdio: ['inherit', 'pipe', 'pipe'] });
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
const required = ['sqlite', 'postgres', 'redis'];
console.log(`\nbackend tests run: ${required.map((b) => `${b} ${perBackend[b] ?? 0}`).join(', ')}`);
// The skips for a missing backend, by reason (ava listed each one above).
const skipReasons = {};
for (const line of lines.filter((line) => line.startsWith('- [skip]'))) {
  const reason = /\((SKIPPED: [^)]*)\)$/.exec(line)?.[1] ?? 'test.skip';
  skipReasons[reason] = (skipReasons[reason] ?? 0) + 1;
}
for (const [reason, n] of Object.entries(skipReasons)) console.log(`skipped ${n}: ${reason}`);
if (skipped || todo || knownFailures) console.log(`${skipped} skipped, ${todo} todo, ${knownFailures} known failures`);
// Under GATEWAY_TEST_REQUIRE_BACKENDS=1 a backend that ran nothing is a failure, whatever the
// reason (its URL unset, every test of it skipped or filtered out): a green run means every
// backend was exercised.
const unexercised = requireBackends ? required.filter((b) => !perBackend[b]) : [];
for (const backend of unexercised) console.log(`FAILED: no test ran on ${backend} (GATEWAY_TEST_REQUIRE_BACKENDS=1)`);
// ava exits non-zero on any failure even when its summary has no count for it.
const failures = (failed === 0 && code !== 0 ? 1 : failed) + unexercised.length;
console.log(`${passed} passed, ${failures} failed`);
process.exit(code === 0 && failures === 0 ? 0 : 1);
