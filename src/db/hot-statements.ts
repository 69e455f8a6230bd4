// The few statements every request runs (the key lookup; hold, settle and release), run
// without knex's per-query work, and grouped across concurrent requests.
//
// Measured on the 2-core VM (one core): through knex a SELECT by key costs ~0.13 ms of CPU and
// a hold + settle on SQLite ~0.7 ms, most of it knex building the query and its pool hop, plus
// one commit per statement; PostgreSQL tops out near 600 hold + settle pairs/s on its commit
// flushes. Here:
// - each statement is prepared once per connection and run through the driver (node-sqlite3
//   prepared statements; node-postgres named statements, parsed and planned once);
// - statements that arrive while a group runs wait and run as the next group on one
//   connection, in one transaction when the group writes more than once: one commit for many
//   requests (group commit). A caller hears of its write only after the COMMIT that made it
//   durable, so no acknowledged write can be lost with the group.
// - Each statement keeps its own atomicity: a refusal (SQLite's RAISE in a trigger) undoes that
//   statement only; any other error, or a failed COMMIT, rolls the whole group back and every
//   statement of it runs again alone, so each caller gets its own outcome. On PostgreSQL a
//   group also gives up after waiting 100 ms on a lock (two processes' groups locking two
//   accounts in opposite orders would otherwise deadlock until PostgreSQL's 1 s detector).
// - A statement may bring a row for another table that must land in the same commit (a
//   charge's usage record: see Companion below). Alone, the statement writes it itself; in a
//   group, one statement writes the rows of the whole group before the COMMIT.
// The connection is borrowed from knex's pool per group (on SQLite the only one), so these
// statements queue fairly with every other query of the process. A group of one runs alone,
// with no transaction around it: one connection at a time costs no latency.
import type { Knex } from 'knex';
import { isPostgres } from './dialect.js';

export interface HotStatement {
  /** SQLite text with :name parameters. */
  readonly sqlite: string;
  /** PostgreSQL text with :name parameters. */
  readonly pg: string;
  /** Whether it writes (a group with more than one write runs in a transaction). */
  readonly writes: boolean;
}

export type Bindings = Record<string, string | number | null>;

/**
 * A row written in the same commit as the statement that brings it, when that statement
 * returns a row (the usage record of a charge, with its settle). A statement run alone — no
 * group, a group rolled back, a caller's transaction — takes `alone()` as its bindings and
 * writes the row itself (the settle's trigger on SQLite, a CTE on PostgreSQL). In a group, the
 * statements take their plain bindings and `batch` writes all the group's rows in one
 * statement (the rows as a JSON array in :rows) before the COMMIT.
 *
 * Why not each statement its own row: on SQLite every statement of a group keeps a statement
 * journal of the pages it changes that the group had changed before it (what lets a refusal
 * undo that statement only). With a usage record each settle changed 16+ such pages, so every
 * settle of a group journaled over 64 KiB. One batch statement per group changes those pages
 * once: 7% less CPU per chat request, 4% per stream (docs/performance.md).
 */
export interface Companion {
  readonly batch: HotStatement;
  /** The statement's bindings when it writes the row itself. */
  alone(): Bindings;
  /** The row to write, from the row the statement returned. */
  row(returned: unknown): Record<string, unknown>;
}

export interface HotStatements {
  run<Row>(statement: HotStatement, bindings: Bindings, companion?: Companion): Promise<Row[]>;
}

/**
 * Runs a hot statement inside a caller's knex transaction (a job written with its hold): not
 * grouped, it commits with the caller's other writes. The rows it returned.
 */
export async function runWithin<Row>(transaction: Knex.Transaction, statement: HotStatement, bindings: Bindings, companion?: Companion): Promise<Row[]> {
  const postgres = isPostgres(transaction);
  const result = await transaction.raw(postgres ? statement.pg : statement.sqlite, companion ? companion.alone() : bindings);
  return (postgres ? result.rows : result) as Row[];
}

const registry = new WeakMap<Knex, HotStatements>();

/** The one runner of a database handle (one group queue per connection pool). */
export function hotStatements(db: Knex): HotStatements {
  let runner = registry.get(db);
  if (!runner) {
    runner = new GroupedStatements(db, isPostgres(db) ? new PostgresDriver() : new SqliteDriver());
    registry.set(db, runner);
  }
  return runner;
}

/** What the grouping needs of a driver, on a connection of knex's pool. */
interface Driver {
  readonly begin: string;
  run(connection: unknown, statement: HotStatement, bindings: Bindings): Promise<unknown[]>;
  exec(connection: unknown, sql: string): Promise<void>;
  /** Whether this error undid only its own statement and left the transaction usable. */
  undidOnlyItself(error: unknown): boolean;
}

interface Pending {
  readonly statement: HotStatement;
  readonly bindings: Bindings;
  readonly companion: Companion | undefined;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

/** Enough for many requests' worth of statements; a longer queue runs as several groups. */
const maxGroupSize = 256;

class GroupedStatements implements HotStatements {
  private readonly queue: Pending[] = [];
  private draining = false;

  constructor(
    private readonly db: Knex,
    private readonly driver: Driver,
  ) {}

  run<Row>(statement: HotStatement, bindings: Bindings, companion?: Companion): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => {
      this.queue.push({ statement, bindings, companion, resolve: resolve as (rows: unknown[]) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        await this.runGroup(this.queue.splice(0, maxGroupSize));
      }
    } finally {
      this.draining = false;
    }
  }

  private async runGroup(group: Pending[]): Promise<void> {
    let connection: unknown;
    try {
      connection = await this.db.client.acquireConnection();
    } catch (error) {
      for (const pending of group) pending.reject(error);
      return;
    }
    let answered = true;
    try {
      let writes = 0;
      for (const pending of group) if (pending.statement.writes) writes++;
      if (writes > 1) answered = await this.runTogether(connection, group);
      else for (const pending of group) await this.runOn(connection, pending);
    } finally {
      this.db.client.releaseConnection(connection);
    }
    // A group that had to be rolled back: each statement again, alone, on a connection of its
    // own, not awaited — one that waits on a lock held elsewhere holds up neither the others
    // nor the groups after it.
    if (!answered) for (const pending of group) void this.runAlone(pending);
  }

  private async runOn(connection: unknown, pending: Pending): Promise<void> {
    try {
      // Alone, a statement with a companion row writes it itself.
      pending.resolve(await this.driver.run(connection, pending.statement, pending.companion ? pending.companion.alone() : pending.bindings));
    } catch (error) {
      pending.reject(error);
    }
  }

  private async runAlone(pending: Pending): Promise<void> {
    let connection: unknown;
    try {
      connection = await this.db.client.acquireConnection();
    } catch (error) {
      pending.reject(error);
      return;
    }
    try {
      await this.runOn(connection, pending);
    } finally {
      this.db.client.releaseConnection(connection);
    }
  }

  /** Runs the group in one transaction; false (rolled back, nobody answered) when it broke. */
  private async runTogether(connection: unknown, group: Pending[]): Promise<boolean> {
    const { driver } = this;
    try {
      await driver.exec(connection, driver.begin);
    } catch {
      // A BEGIN that half happened (PostgreSQL: BEGIN, then a failed SET) must not leave the
      // connection inside a transaction for its next user.
      await driver.exec(connection, 'ROLLBACK').catch(() => undefined);
      return false;
    }
    const outcomes: ({ rows: unknown[] } | { error: unknown })[] = [];
    try {
      for (const pending of group) {
        try {
          outcomes.push({ rows: await driver.run(connection, pending.statement, pending.bindings) });
        } catch (error) {
          if (!driver.undidOnlyItself(error)) throw error;
          outcomes.push({ error });
        }
      }
      await this.writeCompanions(connection, group, outcomes);
      await driver.exec(connection, 'COMMIT');
    } catch {
      await driver.exec(connection, 'ROLLBACK').catch(() => undefined);
      return false;
    }
    group.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if ('rows' in outcome) pending.resolve(outcome.rows);
      else pending.reject(outcome.error);
    });
    return true;
  }

  /** The companion rows of the group's statements that returned a row: one statement per kind. */
  private async writeCompanions(connection: unknown, group: Pending[], outcomes: ({ rows: unknown[] } | { error: unknown })[]): Promise<void> {
    let batches: Map<HotStatement, Record<string, unknown>[]> | undefined;
    group.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (!pending.companion || !('rows' in outcome) || outcome.rows.length === 0) return;
      batches ??= new Map();
      const rows = batches.get(pending.companion.batch) ?? [];
      rows.push(pending.companion.row(outcome.rows[0]));
      batches.set(pending.companion.batch, rows);
    });
    if (!batches) return;
    for (const [batch, rows] of batches) await this.driver.run(connection, batch, { rows: JSON.stringify(rows) });
  }
}

/** A statement's text with numbered parameters, and its binding names in number order. */
interface Positional {
  readonly text: string;
  readonly names: readonly string[];
}

/** Rewrites :name parameters as `${marker}1`, `${marker}2`… (a repeated name keeps its number). */
function toPositional(sql: string, marker: '$' | '?'): Positional {
  const names: string[] = [];
  const text = sql.replace(/(?<!:):([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    const index = names.indexOf(name);
    if (index >= 0) return `${marker}${index + 1}`;
    names.push(name);
    return `${marker}${names.length}`;
  });
  return { text, names };
}

/** The parts of node-sqlite3 used here. */
interface SqliteStatement {
  all(parameters: unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  finalize(callback: () => void): void;
}
interface SqliteConnection {
  prepare(sql: string, callback: (error: Error | null) => void): SqliteStatement;
  exec(sql: string, callback: (error: Error | null) => void): void;
  close(callback: (error: Error | null) => void): void;
}

class SqliteDriver implements Driver {
  // IMMEDIATE: the write lock is taken at BEGIN, so no statement of the group waits for it.
  // Each statement of a group keeps a statement journal: the earlier content of every page it
  // changes (what lets a refusal undo only its own statement). SQLite keeps a journal in
  // memory, one 64 KiB allocation, until it outgrows that; then it moves to a temporary file
  // for the rest of the transaction. A settle changes about 11 pages (44 KiB): under it, unless
  // index pages split on the way. (When each settle also wrote its usage record it changed 16+
  // and every group spilled; the usage records now go in one statement per group, see
  // Companion. Keeping every journal in memory instead, temp_store = MEMORY, cost more: SQLite
  // then grows it 1 KiB at a time, a malloc each — docs/performance.md.)
  readonly begin = 'BEGIN IMMEDIATE';
  /** Prepared statements of each connection, finalized before the connection closes. */
  private readonly prepared = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();
  /** Statement text → numbered form (an array binds faster than an object of names). */
  private readonly positional = new Map<string, Positional>();

  run(connection: unknown, statement: HotStatement, bindings: Bindings): Promise<unknown[]> {
    let positional = this.positional.get(statement.sqlite);
    if (!positional) {
      positional = toPositional(statement.sqlite, '?');
      this.positional.set(statement.sqlite, positional);
    }
    const values = positional.names.map((name) => bindings[name]);
    const all = (prepared: SqliteStatement) => new Promise<unknown[]>((resolve, reject) => prepared.all(values, (error, rows) => (error ? reject(error) : resolve(rows))));
    // Prepared already (every statement after a connection's first few): run it without
    // waiting a turn for the lookup.
    const known = this.prepared.get(connection as SqliteConnection)?.get(positional.text);
    return known ? all(known) : this.statementOf(connection as SqliteConnection, positional.text).then(all);
  }

  exec(connection: unknown, sql: string): Promise<void> {
    return new Promise((resolve, reject) => (connection as SqliteConnection).exec(sql, (error) => (error ? reject(error) : resolve())));
  }

  undidOnlyItself(error: unknown): boolean {
    // A trigger's RAISE(ABORT) and constraint violations undo their statement only.
    return (error as { code?: string }).code === 'SQLITE_CONSTRAINT';
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

/** The parts of node-postgres used here. */
interface PostgresConnection {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
}

class PostgresDriver implements Driver {
  // Two processes' groups can lock the same accounts in opposite orders; PostgreSQL would
  // break that deadlock only after deadlock_timeout (1 s). A group that waits this long on a
  // lock gives up instead and its statements run alone (each locks one account: no cycle).
  // Legitimate waits (another group, a top-up) last a few milliseconds.
  readonly begin = "BEGIN; SET LOCAL lock_timeout = '100ms'";
  /** Statement text → its name and numbered form ($1…). */
  private readonly positional = new Map<string, Positional & { name: string }>();

  async run(connection: unknown, statement: HotStatement, bindings: Bindings): Promise<unknown[]> {
    const prepared = this.prepare(statement.pg);
    const result = await (connection as PostgresConnection).query({ name: prepared.name, text: prepared.text, values: prepared.names.map((name) => bindings[name]) });
    return result.rows;
  }

  async exec(connection: unknown, sql: string): Promise<void> {
    await (connection as PostgresConnection).query({ text: sql });
  }

  undidOnlyItself(): boolean {
    return false; // any error aborts a PostgreSQL transaction
  }

  private prepare(sql: string): Positional & { name: string } {
    let prepared = this.positional.get(sql);
    if (!prepared) {
      prepared = { name: `gateway_hot_${this.positional.size + 1}`, ...toPositional(sql, '$') };
      this.positional.set(sql, prepared);
    }
    return prepared;
  }
}
