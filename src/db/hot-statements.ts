// The few statements every request runs (the key lookup; hold, settle and release), run
// without knex's per-query work and, on SQLite, grouped.
//
// Measured on the 2-core VM (one core): through knex a SELECT by key costs ~0.13 ms of CPU and
// a hold + settle ~0.7 ms, most of it knex building the query and its pool hop, plus one
// WAL commit per statement. Here, on SQLite:
// - each statement is prepared once per connection and run through the driver (~0.03 ms);
// - statements that arrive while a group runs wait and run as the next group, in one
//   transaction when the group writes more than once: one commit for many requests (group
//   commit). Every statement keeps its own atomicity (SQLite undoes a failed statement, not
//   the transaction) and a caller hears of its write only after the COMMIT that made it durable;
//   a failed COMMIT fails every write of the group, and nothing of it stays.
// The connection is the one of knex's pool (max 1 on SQLite), borrowed per group, so these
// statements queue fairly with every other query of the process.
// On PostgreSQL each statement runs on a connection of knex's pool as a named prepared
// statement of the driver (parsed and planned once per connection); statements of concurrent
// requests run in parallel on their own connections, each its own transaction, as before.
import type { Knex } from 'knex';

export interface HotStatement {
  /** SQLite text with :name parameters. */
  readonly sqlite: string;
  /** PostgreSQL text with knex :name bindings. */
  readonly pg: string;
  /** Whether it writes (a group with more than one write runs in a transaction). */
  readonly writes: boolean;
}

export type Bindings = Record<string, string | number | null>;

export interface HotStatements {
  run<Row>(statement: HotStatement, bindings: Bindings): Promise<Row[]>;
}

const registry = new WeakMap<Knex, HotStatements>();

/** The one runner of a database handle (one group queue per connection pool). */
export function hotStatements(db: Knex): HotStatements {
  let runner = registry.get(db);
  if (!runner) {
    runner = db.client.config.client === 'pg' ? new PostgresStatements(db) : new SqliteStatements(db);
    registry.set(db, runner);
  }
  return runner;
}

/** The parts of node-postgres used here. */
interface PostgresConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

class PostgresStatements implements HotStatements {
  /** Statement text → its name and positional form ($1…) with the binding names in order. */
  private readonly positional = new Map<string, { name: string; text: string; names: string[] }>();

  constructor(private readonly db: Knex) {}

  async run<Row>(statement: HotStatement, bindings: Bindings): Promise<Row[]> {
    const prepared = this.prepare(statement.pg);
    const connection = (await this.db.client.acquireConnection()) as PostgresConnection;
    try {
      const result = await connection.query({ name: prepared.name, text: prepared.text, values: prepared.names.map((name) => bindings[name]) });
      return result.rows as Row[];
    } finally {
      this.db.client.releaseConnection(connection);
    }
  }

  private prepare(sql: string): { name: string; text: string; names: string[] } {
    let prepared = this.positional.get(sql);
    if (!prepared) {
      const names: string[] = [];
      const text = sql.replace(/(?<!:):([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
        const index = names.indexOf(name);
        if (index >= 0) return `$${index + 1}`;
        names.push(name);
        return `$${names.length}`;
      });
      prepared = { name: `gateway_hot_${this.positional.size + 1}`, text, names };
      this.positional.set(sql, prepared);
    }
    return prepared;
  }
}

/** The parts of node-sqlite3 used here. */
interface SqliteStatement {
  all(parameters: Record<string, unknown>, callback: (error: Error | null, rows: unknown[]) => void): void;
  finalize(callback: () => void): void;
}
interface SqliteConnection {
  prepare(sql: string, callback: (error: Error | null) => void): SqliteStatement;
  exec(sql: string, callback: (error: Error | null) => void): void;
  close(callback: (error: Error | null) => void): void;
}

interface Pending {
  readonly statement: HotStatement;
  readonly parameters: Record<string, unknown>;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

/** Enough for many requests' worth of statements; a longer queue runs as several groups. */
const maxGroupSize = 256;

class SqliteStatements implements HotStatements {
  private queue: Pending[] = [];
  private draining = false;
  /** Prepared statements of each connection, finalized before the connection closes. */
  private readonly prepared = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();

  constructor(private readonly db: Knex) {}

  run<Row>(statement: HotStatement, bindings: Bindings): Promise<Row[]> {
    const parameters: Record<string, unknown> = {};
    for (const name in bindings) parameters[`:${name}`] = bindings[name];
    return new Promise<Row[]>((resolve, reject) => {
      this.queue.push({ statement, parameters, resolve: resolve as (rows: unknown[]) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.length <= maxGroupSize ? this.queue : this.queue.slice(0, maxGroupSize);
        this.queue = this.queue.length <= maxGroupSize ? [] : this.queue.slice(maxGroupSize);
        await this.runGroup(group);
      }
    } finally {
      this.draining = false;
    }
  }

  private async runGroup(group: Pending[]): Promise<void> {
    let connection: SqliteConnection;
    try {
      connection = (await this.db.client.acquireConnection()) as SqliteConnection;
    } catch (error) {
      for (const pending of group) pending.reject(error);
      return;
    }
    try {
      let writes = 0;
      for (const pending of group) if (pending.statement.writes) writes++;
      const inTransaction = writes > 1;
      if (inTransaction) {
        try {
          await exec(connection, 'BEGIN IMMEDIATE');
        } catch (error) {
          for (const pending of group) pending.reject(error);
          return;
        }
      }
      const outcomes: ({ rows: unknown[] } | { error: unknown })[] = [];
      let broken: unknown;
      for (const pending of group) {
        if (broken) {
          outcomes.push({ error: broken });
          continue;
        }
        try {
          outcomes.push({ rows: await all(await this.statementOf(connection, pending.statement.sqlite), pending.parameters) });
        } catch (error) {
          outcomes.push({ error });
          // A refusal (a trigger's RAISE, a constraint) undoes its own statement only; any other
          // error may have ended the transaction, so nothing after it runs.
          if (inTransaction && (error as { code?: string }).code !== 'SQLITE_CONSTRAINT') broken = error;
        }
      }
      if (inTransaction) {
        try {
          if (broken) throw broken;
          await exec(connection, 'COMMIT');
        } catch (error) {
          await exec(connection, 'ROLLBACK').catch(() => undefined);
          group.forEach((pending, index) => pending.reject('error' in outcomes[index]! ? outcomes[index]!.error : error));
          return;
        }
      }
      group.forEach((pending, index) => {
        const outcome = outcomes[index]!;
        if ('rows' in outcome) pending.resolve(outcome.rows);
        else pending.reject(outcome.error);
      });
    } finally {
      this.db.client.releaseConnection(connection);
    }
  }

  private async statementOf(connection: SqliteConnection, sql: string): Promise<SqliteStatement> {
    let statements = this.prepared.get(connection);
    if (!statements) {
      const own = new Map<string, SqliteStatement>();
      statements = own;
      this.prepared.set(connection, own);
      // SQLite refuses to close a connection with unfinalized statements: finalize ours first,
      // whoever closes it (knex's destroy, the pool disposing of a broken connection).
      const close = connection.close.bind(connection);
      connection.close = (callback) => {
        Promise.all([...own.values()].map((statement) => new Promise<void>((resolve) => statement.finalize(resolve)))).then(() => close(callback));
      };
    }
    const known = statements.get(sql);
    if (known) return known;
    // Kept only once prepared: a statement that failed to prepare never answers a run.
    const statement = await new Promise<SqliteStatement>((resolve, reject) => {
      const prepared = connection.prepare(sql, (error) => (error ? reject(error) : resolve(prepared)));
    });
    statements.set(sql, statement);
    return statement;
  }
}

function all(statement: SqliteStatement, parameters: Record<string, unknown>): Promise<unknown[]> {
  return new Promise((resolve, reject) => statement.all(parameters, (error, rows) => (error ? reject(error) : resolve(rows))));
}

function exec(connection: SqliteConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
}
