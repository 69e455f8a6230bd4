// One knex instance per process, configured for each backend:
// - SQLite: WAL (readers never block the writer), busy_timeout (a second process such as
//   the CLI waits for the lock instead of failing), foreign keys on, one connection so
//   that this process's transactions are serialized in order.
// - PostgreSQL: int8 columns come back as strings (parsed exactly by the repositories).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { Config } from '../config/load.js';
import { migrationSource } from './migration-source.js';

export type Database = Knex;

/** `backgroundCheckpoints`: the caller checkpoints SQLite's WAL itself (src/db/checkpointer.ts), so commits never do. */
export function connectDatabase(database: Config['database'], options: { backgroundCheckpoints?: boolean } = {}): Knex {
  if (database.client === 'sqlite') {
    mkdirSync(path.dirname(database.filename!), { recursive: true });
    return knexFactory({
      client: 'sqlite3',
      connection: { filename: database.filename! },
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
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

export function isPostgres(db: Knex): boolean {
  return db.client.config.client === 'pg';
}
