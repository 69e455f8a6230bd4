// One knex instance per process, configured for each backend:
// - SQLite: WAL (readers never block the writer), busy_timeout (a second process such as
//   the CLI waits for the lock instead of failing), transactions begun IMMEDIATE (so that
//   waiting is what happens: src/db/sqlite-client.ts), foreign keys on, one connection so
//   that this process's transactions are serialized in order.
// - PostgreSQL: int8 columns come back as strings (parsed exactly by the repositories).
// A SQLite file is created only by the commands that migrate, and only in a directory that
// exists: a mistyped path must not become a fresh, empty database that serves nobody's
// accounts (issue 13). The gateway's own data directory is the exception (a fresh install).
// Both are created private (0700, 0600; the WAL and shared memory inherit the file's mode):
// src/db/private-files.ts.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import type { Config } from '../config/load.js';
import { missingSqliteDirectory } from './errors.js';
import { migrationSource } from './migration-source.js';
import { createPrivateFile, privateDirectoryMode } from './private-files.js';
import { ImmediateSqliteClient } from './sqlite-client.js';

export type Database = Knex;

export interface ConnectOptions {
  /** The caller checkpoints SQLite's WAL itself (src/db/checkpointer.ts), so commits never do. */
  readonly backgroundCheckpoints?: boolean;
  /**
   * May a missing SQLite file be created (default true: the commands that migrate)? When false,
   * the first query on a missing file fails saying to run `gateway migrate`.
   */
  readonly create?: boolean;
  /** The gateway's data directory (data_dir): created when missing if the database file is directly in it. */
  readonly dataDir?: string;
}

// The pool logs every failed connection attempt with its stack; the error itself reaches the
// caller (and the operator as one line, src/db/errors.ts), so that log is only noise. Other
// warnings go to stderr, not knex's default stdout, which `--json` keeps for the JSON.
const knexLog = {
  warn(message: unknown) {
    if (typeof message === 'string' && message.startsWith('Acquire connection error')) return;
    console.warn(message);
  },
};

/** Opens (lazily: no connection until the first query) the configured database. */
export function connectDatabase(database: Config['database'], options: ConnectOptions = {}): Knex {
  if (database.client === 'sqlite') {
    const filename = database.filename!;
    const directory = path.dirname(filename);
    const create = options.create ?? true;
    if (create && !existsSync(directory)) {
      if (options.dataDir === undefined || path.resolve(options.dataDir) !== directory) throw missingSqliteDirectory(filename);
      mkdirSync(directory, { recursive: true, mode: privateDirectoryMode });
    }
    if (create && !existsSync(filename)) createPrivateFile(filename);
    return knexFactory({
      // Transactions begin IMMEDIATE, so that one that reads then writes never meets a stale
      // snapshot beside another process's writes (src/db/sqlite-client.ts).
      client: ImmediateSqliteClient as unknown as typeof knexFactory.Client,
      // Without `create`, SQLite opens the file read-write but never creates it (a URI with
      // mode=rw): the first query on a missing file fails, and src/db/errors.ts says to migrate.
      // Checked at the first query, not here: a command that never queries (models ls) needs no database.
      connection: create ? { filename } : { filename: `${pathToFileURL(filename).href}?mode=rw`, flags: ['OPEN_URI'] },
      log: knexLog,
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // cache_size: 20 MB of pages in SQLite's own cache (default 2 MB), so the pages of a
        // large history and its indexes that every request touches stay in process.
        afterCreate(connection: { exec: (sql: string, done: (error: Error | null) => void) => void }, done: (error: Error | null, connection: unknown) => void) {
          connection.exec(
            `PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -20000;${options.backgroundCheckpoints ? ' PRAGMA wal_autocheckpoint = 0;' : ''}`,
            (error) => done(error, connection),
          );
        },
      },
      migrations: { migrationSource, tableName: 'knex_migrations' },
    });
  }
  return knexFactory({
    client: 'pg',
    connection: database.url,
    pool: { min: 0, max: database.poolMax },
    log: knexLog,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}
