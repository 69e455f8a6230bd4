// Backup and restore of SQLite (src/db/backup.ts), in-process: a restore checks the backup
// before it replaces anything, refuses while a gateway process is live, keeps the replaced file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import knexFactory from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import { backupSqlite, BackupTargetExistsError, checkLedger, DatabaseInUseError, restoreSqlite } from '../../src/db/backup.js';
import { countRun, createTestDatabase } from '../helpers/backends.js';

test('restore: a backup whose ledger does not add up is not restored (the database untouched); a live instance refuses it; a good one replaces the database, the old kept', async (t) => {
  const source = await createTestDatabase('sqlite');
  const target = await createTestDatabase('sqlite');
  t.teardown(async () => {
    await source.drop();
    await target.drop();
  });
  const account = await new Accounts(source.db).create('kept');
  const ledger = new Ledger(source.db);
  await ledger.credit(account.id, 5_000n, 'topup');
  await ledger.hold(account.id, 1_000n, { ttlMs: 60_000 });
  const directory = path.dirname(source.database.filename!);
  const good = path.join(directory, 'good.db');
  const result = await backupSqlite(source.db, good, { force: false });
  t.is(result.to, good);
  await t.throwsAsync(backupSqlite(source.db, good, { force: false }), { instanceOf: BackupTargetExistsError });
  // A missing folder is named as such (it was reported as the source database failing to open), and not created.
  const nowhere = path.join(path.dirname(good), 'missing-folder', 'gateway.db');
  await t.throwsAsync(backupSqlite(source.db, nowhere, { force: false }), { message: `the folder ${path.dirname(nowhere)} does not exist; create it, or choose another --to` });
  t.false(existsSync(path.dirname(nowhere)));
  t.is((await backupSqlite(source.db, good, { force: true })).to, good);

  // A backup with a balance one unit off its ledger.
  await source.db('accounts').where({ id: account.id }).update({ balance_units: 5_001 });
  const bad = path.join(directory, 'bad.db');
  await backupSqlite(source.db, bad, { force: false });
  const filename = target.database.filename!;
  await target.db.destroy();
  const before = readFileSync(filename);
  const refused = await restoreSqlite(bad, filename, { force: false, ownerGoneAfterMs: 10_000 });
  t.like(refused, { restored: false, integrity: 'ok', accounts: 1, previous: null });
  t.deepEqual(refused.problems, [`${account.id}: balance 5001 units != sum of its ledger 5000`, `${account.id}: newest balance_after 5000 != balance 5001`]);
  t.deepEqual(readFileSync(filename), before, 'the database is untouched');

  // A live gateway process on the target (a fresh heartbeat): refused unless forced.
  const live = knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true });
  await live('instances').insert({ id: 'inst_live', hostname: 'h', pid: 42, started_at: Date.now(), heartbeat_at: Date.now() });
  await live.destroy();
  await t.throwsAsync(restoreSqlite(good, filename, { force: false, ownerGoneAfterMs: 10_000 }), { instanceOf: DatabaseInUseError, message: /inst_live \(pid 42 on h\)/ });
  const restored = await restoreSqlite(good, filename, { force: true, ownerGoneAfterMs: 10_000 });
  t.like(restored, { restored: true, integrity: 'ok', accounts: 1, problems: [] });
  t.true(existsSync(restored.previous!), 'the replaced database is kept');
  const check = knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true });
  t.deepEqual(await checkLedger(check), { accounts: 1, problems: [] });
  t.is(Number((await check('accounts').where({ id: account.id }).first()).held_units), 1_000);
  await check.destroy();
  countRun('sqlite');
});
