// knex's SQLite client with one change: its transactions begin IMMEDIATE (take the database's
// write lock at BEGIN) instead of DEFERRED.
//
// Why: a deferred transaction that reads and then writes upgrades its read snapshot to a
// write lock at the first write. If another connection (another process: the CLI beside a
// running `serve`, a second worker) committed in between, SQLite cannot upgrade a stale
// snapshot and answers SQLITE_BUSY at once, without waiting busy_timeout. Every transaction
// of the gateway reads before it writes (revoke a token: read it, update it, audit it), so
// `gateway admin tokens revoke` failed whenever `serve` wrote something (a hold heartbeat, a
// request-log batch) between its read and its write. Begun IMMEDIATE, the transaction waits
// for the lock (busy_timeout) before reading, and its snapshot can never go stale.
//
// Within one process nothing changes: the pool has one connection, so its transactions were
// already serialized. The hot path's grouped statements (src/db/hot-statements.ts) begin
// IMMEDIATE for the same reason, without knex.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type TransactionConstructor = new (...args: unknown[]) => { query(connection: unknown, sql: string): Promise<unknown> };
type ClientConstructor = new (config: unknown) => object;

// knex publishes no types for its dialect classes; these are the two members this file uses.
const SqliteTransaction = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction.js') as TransactionConstructor;
const SqliteClient = require('knex/lib/dialects/sqlite3/index.js') as ClientConstructor;

class ImmediateTransaction extends SqliteTransaction {
  // Called for the outermost transaction only; a nested one is a SAVEPOINT inside it.
  begin(connection: unknown): Promise<unknown> {
    return this.query(connection, 'BEGIN IMMEDIATE;');
  }
}

/** Pass as knex's `client` for a SQLite database: `knex({ client: ImmediateSqliteClient, ... })`. */
export class ImmediateSqliteClient extends SqliteClient {
  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args);
  }
}
