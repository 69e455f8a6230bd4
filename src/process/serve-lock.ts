// One `serve` per SQLite file, unless the rate limits are shared (issue 30). Two serve processes
// on one SQLite file with cache.url: memory would each count every key's requests per minute on
// their own, doubling every limit, and nothing said so. So a serve on SQLite takes a lock on a
// file beside the database (`<database>-serve.lock`) for as long as it runs:
// - with cache.url: memory, an exclusive lock: it runs alone;
// - with Redis, a shared lock: serves sharing their limits through Redis run side by side, but
//   not beside one that keeps its limits to itself (it holds the exclusive lock, or cannot take
//   it while they hold the shared one).
// The lock is SQLite's own file lock on that (empty) file, taken with no wait: BEGIN EXCLUSIVE,
// or a read transaction (a shared lock) held open. The operating system drops it when the
// process ends, however it ends: a serve killed with SIGKILL never blocks the next start, and
// neither a reused pid nor a stale file can. `gateway worker` and the other commands never take
// it: they run beside serve as before. PostgreSQL is not locked: instances there are many by
// design (src/storage/shared-storage.ts), and share their limits through Redis (docs/scaling.md).
// The refusal names who holds the lock from the live serve rows of `instances` (its pid and
// address), when it has recorded them.
import sqlite3 from 'sqlite3';
import { createPrivateFile } from '../db/private-files.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Services } from '../services.js';
import { runningServes } from './running-serves.js';

export interface ServeLock {
  /** Releases the lock (at the end of a graceful stop; a process that dies releases it too). */
  release(): Promise<void>;
}

/** Takes this serve's lock on its SQLite database, or throws `serve_already_running`; nothing to take on PostgreSQL. */
export async function lockServe(services: Pick<Services, 'config' | 'db' | 'now'>): Promise<ServeLock> {
  const { config } = services;
  if (config.database.client !== 'sqlite') return { release: async () => undefined };
  const filename = config.database.filename!;
  const lockFile = `${filename}-serve.lock`;
  createPrivateFile(lockFile);
  const sharedLimits = config.cache.url.startsWith('redis');
  const connection = await open(lockFile);
  try {
    await exec(connection, sharedLimits ? 'BEGIN; SELECT count(*) FROM sqlite_master;' : 'BEGIN EXCLUSIVE');
  } catch (error) {
    await close(connection);
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    const others = await runningServes(services.db, { now: services.now(), goneAfterMs: config.holds.ownerGoneAfterMs }).catch(() => []);
    const who = others.length > 0 ? others.map((other) => `pid ${other.pid} on ${other.hostname}, ${other.url}`).join('; ') : 'its pid is not recorded yet';
    throw new GatewayError(
      'serve_already_running',
      `another gateway serve is running on the SQLite database ${filename} (${who}); two serve processes on one database would each keep their own rate limits. ` +
        'Stop it first, or set cache.url to one Redis (redis://…) for every serve, which shares the limits. gateway worker and the other commands may run beside serve; to use several cores, give one serve --workers N (server.workers).',
    );
  }
  return {
    async release() {
      await close(connection);
    },
  };
}

function open(filename: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const connection = new sqlite3.Database(filename, (error) => (error ? reject(error) : resolve(connection)));
    // No wait: a lock that is taken means a serve is running, not a moment's contention.
    connection.configure('busyTimeout', 0);
  });
}

function exec(connection: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function close(connection: sqlite3.Database): Promise<void> {
  return new Promise((resolve) => connection.close(() => resolve()));
}
