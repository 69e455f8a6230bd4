// The data directory, the SQLite database, its WAL and shared memory, and backups are the
// operator's alone (issue 30): created 0700/0600 by migrate, serve and backup through the real
// binary, and an older install's looser modes tightened when serve starts, said once in the log.
import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { execa } from 'execa';
import { countRun } from '../helpers/backends.js';
import { gatewayBin, runCli, runCliJson } from '../helpers/cli.js';
import { exampleConfigPath } from '../helpers/gateway.js';

const modeOf = (file: string) => `0${(statSync(file).mode & 0o777).toString(8)}`;

/** Starts `serve --json`, keeping its log (stderr); stop() ends it with SIGTERM and resolves with the log. */
async function serve(t: ExecutionContext, env: Record<string, string>) {
  const child = execa(gatewayBin, ['serve', '--host', '127.0.0.1', '--port', '0', '--json'], { env, reject: false, buffer: false });
  t.teardown(() => void child.kill('SIGKILL')); // a failed assertion before stop() leaves no process behind
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('\n')) resolve(JSON.parse(output.split('\n')[0]!).url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${log}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await child;
      return log;
    },
  };
}

const tightenedLines = (log: string) =>
  log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; tightened?: unknown })
    .filter((line) => line.tightened !== undefined);

test('migrate creates the data directory 0700 and the database 0600; serve writes its WAL and shared memory 0600; a backup is 0600', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'gw-perms-'));
  const dataDir = path.join(root, 'data'); // missing: migrate creates it
  const env = { GATEWAY_CONFIG: exampleConfigPath, GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: 'warn' };
  const database = path.join(dataDir, 'gateway.db');

  const migrated = await runCli(['migrate'], env);
  t.is(migrated.exitCode, 0, migrated.stderr);
  t.is(modeOf(dataDir), '0700');
  t.is(modeOf(database), '0600');

  const server = await serve(t, env);
  await runCliJson(['accounts', 'create', 'acme'], env); // a write beside serve: the WAL is in use
  t.is((await fetch(`${server.url}/readyz`)).status, 200);
  t.is(modeOf(`${database}-wal`), '0600');
  t.is(modeOf(`${database}-shm`), '0600');

  const backup = path.join(root, 'gateway-backup.db');
  const backedUp = await runCli(['backup', '--to', backup, '--json'], env);
  t.is(backedUp.exitCode, 0, backedUp.stderr);
  t.is(modeOf(backup), '0600');
  const log = await server.stop();
  t.deepEqual(tightenedLines(log), [], 'nothing needed tightening on a fresh install');
  countRun('sqlite');
});

test('serve tightens an older install (data directory 0755, database and WAL 0644) and says so once in the log', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'gw-perms-old-'));
  const dataDir = path.join(root, 'data');
  const env = { GATEWAY_CONFIG: exampleConfigPath, GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: 'warn' };
  const database = path.join(dataDir, 'gateway.db');
  t.is((await runCli(['migrate'], env)).exitCode, 0);
  // What an older gateway left: a directory anyone may list, files anyone may read.
  chmodSync(dataDir, 0o755);
  chmodSync(database, 0o644);

  const first = await serve(t, env);
  t.is(modeOf(dataDir), '0700');
  t.is(modeOf(database), '0600');
  const firstLog = await first.stop();
  const lines = tightenedLines(firstLog);
  t.is(lines.length, 1, firstLog);
  t.deepEqual(lines[0]!.tightened, [
    { path: dataDir, was: '0755', now: '0700' },
    { path: database, was: '0644', now: '0600' },
  ]);
  t.is(lines[0]!.msg, `the gateway's data was readable by other users; now only its owner can read it: ${dataDir} 0755 -> 0700, ${database} 0644 -> 0600`);

  const second = await serve(t, env);
  t.deepEqual(tightenedLines(await second.stop()), [], 'said once: the next start finds nothing to tighten');
  countRun('sqlite');
});
