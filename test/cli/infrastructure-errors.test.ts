// What the gateway needs from its machine — a free port, a reachable and migrated database, an
// existing directory for the SQLite file — and the one line, exit code and absence of a stack
// when it is missing (issue 13, item 13). Through the real binary, as an operator meets them.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { displayDatabaseUrl } from '../../src/db/errors.js';
import { countRun, testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { exampleConfigPath } from '../helpers/gateway.js';

/** stderr must be exactly this one line (no stack, no pool log), and the exit code this. */
function assertOneLine(t: import('ava').ExecutionContext, result: { exitCode: number; stderr: string }, line: string, exitCode = 1): void {
  t.is(result.stderr, line); // execa drops the final newline
  t.is(result.exitCode, exitCode);
}

test('serve on a port in use: one line naming --port, GATEWAY_PORT and server.port, exit 1', async (t) => {
  const occupier = createServer();
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => occupier.close(() => resolve())));
  const { port } = occupier.address() as AddressInfo;
  const result = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port)], cliEnv());
  assertOneLine(t, result, `error: cannot listen on 127.0.0.1:${port}: the port is in use by another process; stop it, or choose another port with --port, GATEWAY_PORT or server.port in the config`);
  countRun('sqlite');
});

test('simulate on a port in use: one line naming --port (its only setting), no stack; --json gives the catalog error', async (t) => {
  const occupier = createServer();
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => occupier.close(() => resolve())));
  const { port } = occupier.address() as AddressInfo;
  const line = `cannot listen on 127.0.0.1:${port}: the port is in use by another process; stop it, or choose another port with --port`;
  assertOneLine(t, await runCli(['simulate', '--port', String(port)], cliEnv()), `error: ${line}`);
  assertOneLine(t, await runCli(['simulate', '--port', String(port), '--json'], cliEnv()), JSON.stringify({ error: { code: 'infrastructure_unavailable', message: line } }));
});

test('PostgreSQL unreachable: one line naming the URL without its password and what to check, for a command and for serve', async (t) => {
  const env = cliEnv(undefined, { GATEWAY_DATABASE_URL: 'postgres://user:secret@127.0.0.1:1/db' });
  const line =
    'error: cannot reach PostgreSQL at postgres://user:***@127.0.0.1:1/db: connection refused; check that PostgreSQL is running and listening on 127.0.0.1:1, and the URL (GATEWAY_DATABASE_URL or database.url in the config)';
  for (const args of [['accounts', 'ls'], ['serve', '--port', '0']]) {
    const result = await runCli(args, env);
    assertOneLine(t, result, line);
    t.false(`${result.stdout}${result.stderr}`.includes('secret'), `${args[0]}: the password is not shown`);
  }
});

test('a SQLite database in a missing directory is not created: one line naming the directory, exit 1, for every command', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'gw-missing-'));
  const filename = path.join(root, 'typo', 'gateway.db');
  const env = cliEnv(undefined, { GATEWAY_DATABASE_URL: `sqlite:${filename}` });
  const line = `error: the directory ${path.dirname(filename)} of the SQLite database sqlite:${filename} does not exist; create it (mkdir -p ${path.dirname(filename)}) or point GATEWAY_DATABASE_URL / database.url at an existing one`;
  for (const args of [['accounts', 'ls'], ['migrate'], ['serve', '--port', '0']]) {
    assertOneLine(t, await runCli(args, env), line);
  }
  t.false(existsSync(path.dirname(filename)), 'the directory was not created');
  countRun('sqlite');
});

test('a SQLite database that is not migrated, or not there: commands other than serve and migrate say "run: gateway migrate" and create nothing', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'gw-unmigrated-'));
  const empty = path.join(root, 'empty.db');
  writeFileSync(empty, ''); // a zero-byte file is an empty SQLite database
  assertOneLine(
    t,
    await runCli(['accounts', 'ls'], cliEnv(undefined, { GATEWAY_DATABASE_URL: `sqlite:${empty}` })),
    `error: the database sqlite:${empty} is not migrated (it has no table "accounts"); run: gateway migrate`,
  );
  // The command to run carries the --config that was given.
  assertOneLine(
    t,
    await runCli(['accounts', 'ls', '--config', exampleConfigPath], cliEnv(undefined, { GATEWAY_DATABASE_URL: `sqlite:${empty}` })),
    `error: the database sqlite:${empty} is not migrated (it has no table "accounts"); run: gateway migrate --config ${exampleConfigPath}`,
  );
  const absent = path.join(root, 'absent.db');
  assertOneLine(t, await runCli(['accounts', 'ls'], cliEnv(undefined, { GATEWAY_DATABASE_URL: `sqlite:${absent}` })), `error: there is no database at sqlite:${absent}; run: gateway migrate (it creates it)`);
  t.false(existsSync(absent), 'accounts ls created no database');
  // migrate creates it; then the command works. serve migrates itself at start (test/cli/serve.test.ts).
  t.is((await runCli(['migrate'], cliEnv(undefined, { GATEWAY_DATABASE_URL: `sqlite:${absent}` }))).exitCode, 0);
  const listed = await runCli(['accounts', 'ls', '--json'], cliEnv(undefined, { GATEWAY_DATABASE_URL: `sqlite:${absent}` }));
  t.deepEqual([listed.exitCode, JSON.parse(listed.stdout)], [0, { object: 'list', data: [], has_more: false }]);
  countRun('sqlite');
});

test('the data directory itself is created on a fresh install (migrate with a GATEWAY_DATA_DIR that does not exist yet)', async (t) => {
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'gw-fresh-')), 'data');
  const result = await runCli(['migrate', '--json'], { ...cliEnv(), GATEWAY_DATA_DIR: dataDir });
  t.is(result.exitCode, 0, result.stderr);
  t.true(existsSync(path.join(dataDir, 'gateway.db')));
  countRun('sqlite');
});

testOnBackends('a database migrated by a newer version: migrate, serve and worker say so in one line (which migration, what to do), exit 1, no stack; --json gives database_newer_than_gateway', async (t, database) => {
  // What a newer build leaves behind: a migration this build has no file for, in a later batch.
  const newer = '29991231000000_from_a_newer_version';
  const last = await database.db('knex_migrations').max({ batch: 'batch' }).first();
  await database.db('knex_migrations').insert({ name: newer, batch: Number(last?.batch) + 1, migration_time: new Date() });
  const message =
    `the database ${displayDatabaseUrl(database.database)} was migrated by a newer version of the gateway: it has the migration ${newer}, unknown to this build, which is older than the database. ` +
    'Run the newer version (upgrade this installation to it); or, to go back to this version, either undo those migrations with the newer version still installed (gateway migrate --rollback) or restore the backup taken before the upgrade (see "Roll back" in docs/deployment.md)';
  const env = cliEnv(database);
  for (const args of [['migrate'], ['serve', '--host', '127.0.0.1', '--port', '0'], ['worker']]) {
    assertOneLine(t, await runCli(args, env), `error: ${message}`);
    const json = await runCli([...args, '--json'], env);
    t.is(json.stdout, '', `${args[0]} --json: nothing on stdout`);
    assertOneLine(t, json, JSON.stringify({ error: { code: 'database_newer_than_gateway', message } }));
  }
  // Nothing was changed: the newer migration is still recorded, and nothing was rolled back.
  t.deepEqual((await database.db('knex_migrations').where({ name: newer })).length, 1);
});
