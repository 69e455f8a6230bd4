import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { pino } from 'pino';
import sqlite3 from 'sqlite3';
import { SqliteCheckpointer } from '../../src/db/checkpointer.js';
import { countRun, createTestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway } from '../helpers/gateway.js';

const silent = pino({ level: 'silent' });

/** A WAL database whose own connection never checkpoints (as `serve`'s pool connection). */
async function writer(): Promise<{ filename: string; run(sql: string): Promise<Record<string, number>[]>; close(): Promise<void> }> {
  const filename = path.join(mkdtempSync(path.join(tmpdir(), 'gw-ckpt-')), 'x.db');
  const connection = new sqlite3.Database(filename);
  const run = (sql: string) => new Promise<Record<string, number>[]>((resolve, reject) => connection.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as Record<string, number>[]))));
  await run('PRAGMA journal_mode = WAL');
  await run('PRAGMA wal_autocheckpoint = 0');
  await run('CREATE TABLE t (id INTEGER PRIMARY KEY, payload BLOB)');
  return { filename, run, close: () => new Promise((resolve) => connection.close(() => resolve())) };
}

/**
 * Writes ~1,500 pages, waits for a checkpoint of the checkpointer (if any) begun after them,
 * writes once more: the WAL frames left.
 */
async function framesAfterWrites(database: Awaited<ReturnType<typeof writer>>, checkpointer?: SqliteCheckpointer): Promise<number> {
  for (let index = 0; index < 1_500; index++) await database.run(`INSERT INTO t (payload) VALUES (randomblob(3000))`);
  if (checkpointer) {
    const begunBefore = checkpointer.begun;
    await eventually(() => checkpointer.finished > begunBefore, { what: 'a timer checkpoint begun after the writes has finished' });
  }
  await database.run(`INSERT INTO t (payload) VALUES (randomblob(100))`);
  // log = the frames in the WAL now (a checkpoint that completed lets the next writer start it over).
  const [status] = await database.run('PRAGMA wal_checkpoint(PASSIVE)');
  return status!.log!;
}

test('the checkpointer copies the WAL into the database off the writer: the next write starts the WAL over', async (t) => {
  const database = await writer();
  const checkpointer = new SqliteCheckpointer(database.filename, silent, 20);
  try {
    const frames = await framesAfterWrites(database, checkpointer);
    t.true(frames < 20, `the WAL was started over (${frames} frames left)`);
  } finally {
    await checkpointer.close();
    await database.close();
  }
  countRun('sqlite');
});

test('without the checkpointer the same writes stay in the WAL (the control for the test above)', async (t) => {
  const database = await writer();
  try {
    const frames = await framesAfterWrites(database);
    t.true(frames > 1_000, `${frames} frames in the WAL`);
  } finally {
    await database.close();
  }
  countRun('sqlite');
});

test('serve checkpoints in the background (its pool connection does not); the CLI keeps SQLite automatic checkpoints', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const [cli] = await database.db.raw('PRAGMA wal_autocheckpoint');
  t.is(Object.values(cli as object)[0], 1000);
  const gateway = await startGateway(t, database);
  const [served] = await gateway.services.db.raw('PRAGMA wal_autocheckpoint');
  t.is(Object.values(served as object)[0], 0);
  countRun('sqlite');
});
