// `gateway backup` and `gateway restore` through the binary (issue 18). The acceptance test: a
// backup of a serving SQLite gateway under load (paid chat requests in flight through the
// simulator) restores to a database where every account's balance == sum(ledger) and held ==
// its active holds. Restore refuses while the gateway is live on the database; backup refuses
// to overwrite; PostgreSQL is pointed to pg_dump.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { connectDatabase } from '../../src/db/connect.js';
import { assertLedgerInvariants, countRun, createTestDatabase, needing } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';

test('a backup of a serving SQLite gateway under paid load restores to a database whose every account has balance == sum(ledger)', async (t) => {
  t.timeout(180_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const simulator = await startSimulatorProcess(t);
  const env = processEnv(writeSharedConfig(simulator.url), database);
  const gateway = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  t.teardown(() => gateway.stop());
  const clients = await Promise.all([createClient(database, 50_000_000n), createClient(database, 50_000_000n)]);

  // Load: 8 loops of paid chat requests until told to stop.
  let stop = false;
  let served = 0;
  const loops = Array.from({ length: 8 }, async (_, index) => {
    const { key } = clients[index % 2]!;
    while (!stop) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/chat', max_tokens: 200, messages: [{ role: 'user', content: `request ${index} ${served}` }] }),
      });
      await response.text();
      if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
      served++;
    }
  });
  const charges = async () => Number((await database.db('ledger_transactions').where({ kind: 'charge' }).count({ n: '*' }).first())!.n);
  while ((await charges()) < 20) await new Promise((resolve) => setTimeout(resolve, 100));

  const directory = mkdtempSync(path.join(tmpdir(), 'gw-backup-'));
  const target = path.join(directory, 'backup.db');
  const backup = await runCliJson(['backup', '--to', target], env);
  const servedDuringBackup = served;
  t.like(backup, { from: database.database.filename, to: target, bytes: statSync(target).size });
  // Refused while serving: the live instance's heartbeat.
  const inUse = await runCli(['restore', '--from', target, '--json'], env);
  t.is(inUse.exitCode, 1);
  t.is(JSON.parse(inUse.stderr).error.code, 'database_in_use');
  const overwrite = await runCli(['backup', '--to', target, '--json'], env);
  t.is(overwrite.exitCode, 1);
  t.deepEqual(JSON.parse(overwrite.stderr), { error: { code: 'backup_target_exists', message: `${target} exists; pass --force to replace it` } });
  stop = true;
  await Promise.all(loops);
  t.true(served > servedDuringBackup, `requests were served while the backup ran (${servedDuringBackup} before it ended, ${served} in all)`);

  // Restore as another gateway's database (nothing live there).
  const restoredFile = path.join(directory, 'restored.db');
  const restore = await runCliJson(['restore', '--from', target], { ...env, GATEWAY_DATABASE_URL: `sqlite:${restoredFile}` });
  t.deepEqual(restore, { from: target, to: restoredFile, restored: true, previous: null, integrity_check: 'ok', accounts_checked: 2, ledger_ok: true, problems: [] });
  const restored = connectDatabase({ client: 'sqlite', url: `sqlite:${restoredFile}`, filename: restoredFile, poolMax: 1 }, { create: false });
  t.teardown(() => restored.destroy());
  const restoredCharges = Number((await restored('ledger_transactions').where({ kind: 'charge' }).count({ n: '*' }).first())!.n);
  t.true(restoredCharges >= 20, `${restoredCharges} charges in the backup`);
  await assertLedgerInvariants(t, restored);
  t.log(`${restoredCharges} charges and ${Number((await restored('holds').where({ status: 'active' }).count({ n: '*' }).first())!.n)} active holds in the backup; ${served} requests served in all`);
  t.false(existsSync(`${target}.partial-${process.pid}`));
  countRun('sqlite');
});

needing('postgres')('on PostgreSQL, backup and restore are refused with a pointer to pg_dump/pg_restore, exit 1', async (t) => {
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const env = cliEnv(database);
  const backup = await runCli(['backup', '--to', path.join(tmpdir(), 'never.db'), '--json'], env);
  t.is(backup.exitCode, 1);
  t.is(JSON.parse(backup.stderr).error.code, 'backup_not_supported');
  t.regex(JSON.parse(backup.stderr).error.message, /pg_dump --format=custom/);
  const restore = await runCli(['restore', '--from', path.join(tmpdir(), 'never.db')], env);
  t.is(restore.exitCode, 1);
  t.regex(restore.stderr, /^error: gateway restore restores SQLite databases; .*pg_restore/);
  countRun('postgres');
});
