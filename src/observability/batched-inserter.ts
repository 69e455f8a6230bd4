// Append-only records written in batches off the request path (the request log, usage
// records): entries are queued and inserted together every flush interval (or when a batch
// fills).
//
// A batch that fails is not lost: it goes back to the head of the queue and is retried with
// backoff (250 ms doubling to 5 s) — for as long as the database is unreachable
// (src/errors/database-unavailable.ts), or a few times for any other error (a batch the database refuses for
// what it is would otherwise block the queue forever). The queue is bounded (`maxQueued`,
// 20,000 rows per table by default: a few MB, minutes of traffic at the usual rates): beyond
// it the oldest rows are dropped, counted (gateway_records_dropped_total{table} in /metrics)
// and logged. A graceful stop retries what is left until its deadline; what still cannot be
// written then is counted as dropped.
import type { Knex } from 'knex';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import { hotStatements, type HotStatement } from '../db/hot-statements.js';
import { backoffMs, retryUntil } from '../util/retry-until.js';
import type { Logger } from './logger.js';
import type { RequestSource } from './request-source.js';

/** The SQL `value` of `column`, with its default (`defaults`, SQL by column) when it is null. */
export function withColumnDefault(defaults: Readonly<Record<string, string>>, column: string, value: string): string {
  const fallback = defaults[column];
  return fallback === undefined ? value : `COALESCE(${value}, ${fallback})`;
}

/**
 * INSERT of the rows of a JSON array (`:rows`) into `table`'s `columns`, in the array's order.
 * With `uniqueBy` (an indexed column), rows whose value is already in the table are left out:
 * a batch retried after a commit whose answer was lost (the connection cut during COMMIT) is
 * not written twice. `defaults`: SQL for the columns a row may leave out (usage-record.ts).
 */
export function insertRowsStatement(table: string, columns: readonly string[], uniqueBy?: string, defaults: Readonly<Record<string, string>> = {}): HotStatement {
  const list = columns.join(', ');
  const sqliteNew = uniqueBy ? ` WHERE NOT EXISTS (SELECT 1 FROM ${table} existing WHERE existing.${uniqueBy} = value ->> '${uniqueBy}')` : '';
  const pgNew = uniqueBy ? ` WHERE NOT EXISTS (SELECT 1 FROM ${table} existing WHERE existing.${uniqueBy} = rows.${uniqueBy})` : '';
  return {
    writes: true,
    // jsonb_each: each row's value comes as SQLite's binary JSON, which ->> reads in place; with
    // json_each it came as text, parsed again for every column (2.5× the time for 12 rows).
    sqlite: `INSERT INTO ${table} (${list}) SELECT ${columns.map((column) => withColumnDefault(defaults, column, `value ->> '${column}'`)).join(', ')} FROM jsonb_each(:rows)${sqliteNew} ORDER BY key`,
    // The table's own row type gives each column its type: no list of types to keep in step.
    pg: `INSERT INTO ${table} (${list}) SELECT ${columns.map((column) => withColumnDefault(defaults, column, `rows.${column}`)).join(', ')} FROM json_populate_recordset(NULL::${table}, CAST(:rows AS json)) WITH ORDINALITY AS rows${pgNew} ORDER BY rows.ordinality`,
  };
}

/** A row of the request_log table. */
export interface RequestLogEntry {
  request_id: string;
  account_id: string | null;
  key_id: string | null;
  method: string;
  route: string;
  model: string | null;
  status: number;
  duration_us: number;
  charged_units: number;
  created_at: number;
  /** The provider of the last upstream route tried, when one was. */
  provider: string | null;
  /** A failed request: the catalog code and message it was answered with (in the body, or in the stream after its first byte). */
  error_code: string | null;
  error_message: string | null;
  /** An upstream's failure: its status (`502`, `429`, `timeout`, `connect_error`, `stream_error`). */
  upstream_status: string | null;
  /** The API's traffic or the web cabinet's page calls (src/observability/request-source.ts). */
  source: RequestSource;
}

export interface BatchedInserterOptions<Row> {
  intervalMs: number;
  batchSize: number;
  /** Rows kept queued at most (the backlog while the database is down); beyond it the oldest are dropped. */
  maxQueued: number;
  /** First retry delay; doubles per failure up to retryMaxMs. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Attempts of a batch that fails for another reason than an unreachable database. */
  maxAttempts?: number;
  /** Told how many rows were finally dropped (metrics). */
  onDropped?: (count: number) => void;
  /** The insert itself (tests: a fake database). */
  write?: (rows: Row[]) => Promise<void>;
  /** A column that is unique per row (request_id of request_log and usage_records, indexed): a retried batch skips rows already written. */
  uniqueBy?: string;
  /** SQL for the columns a row may leave out (insertRowsStatement). */
  defaults?: Readonly<Record<string, string>>;
  /** Timers and clock (tests: a fake clock). */
  timers?: { setTimeout(callback: () => void, ms: number): unknown; clearTimeout(handle: unknown): void; now(): number };
}

const realTimers = {
  setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

export class BatchedInserter<Row extends object> {
  private queue: Row[] = [];
  private timer: unknown;
  private flushing: Promise<void> = Promise.resolve();
  private readonly write: (rows: Row[]) => Promise<void>;
  private readonly timers: NonNullable<BatchedInserterOptions<Row>['timers']>;
  /** Consecutive failed attempts (0: the last write landed). */
  private failures = 0;
  /** Attempts of the batch at the head of the queue that failed for another reason than an outage. */
  private headAttempts = 0;
  /** Rows finally dropped since the start (the queue overflowed, a batch was refused, the stop's deadline passed). */
  dropped = 0;

  constructor(
    db: Knex,
    private readonly table: string,
    columns: readonly (keyof Row & string)[],
    private readonly logger: Logger,
    private readonly options: BatchedInserterOptions<Row> = { intervalMs: 250, batchSize: 500, maxQueued: 20_000 },
  ) {
    const insert = insertRowsStatement(table, columns, options.uniqueBy, options.defaults);
    this.write = options.write ?? (async (rows) => void (await hotStatements(db).run(insert, { rows: JSON.stringify(rows) })));
    this.timers = options.timers ?? realTimers;
  }

  /** Rows waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  record(entry: Row): void {
    this.queue.push(entry);
    this.trim();
    if (this.failures > 0) return; // a retry is scheduled: it takes the new rows with it
    if (this.queue.length >= this.options.batchSize) void this.flush();
    else this.timer ??= this.timers.setTimeout(() => void this.flush(), this.options.intervalMs);
  }

  /**
   * Writes everything queued so far. Resolves when it is in the database, or when an attempt
   * failed and a retry is scheduled (the rows stay queued).
   */
  flush(): Promise<void> {
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(() => this.writeQueued());
    return this.flushing;
  }

  /**
   * For a graceful stop: keeps writing (with the retry backoff) until the queue is empty or
   * `deadlineMs` has passed; what is left then is dropped and counted. Returns how many.
   */
  async close(deadlineMs: number): Promise<number> {
    const until = this.timers.now() + deadlineMs;
    await retryUntil(until, {
      attempt: () => this.flush(),
      done: () => this.queue.length === 0,
      delayMs: () => {
        // This loop does the retrying now, not the scheduled retry.
        this.timers.clearTimeout(this.timer);
        this.timer = undefined;
        return this.retryDelay();
      },
      now: () => this.timers.now(),
      sleep: (ms) => new Promise<void>((resolve) => this.timers.setTimeout(resolve, ms)),
    });
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const left = this.queue.length;
    if (left > 0) {
      this.queue = [];
      this.drop(left, 'the stop deadline passed with the database unreachable');
    }
    return left;
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.batchSize);
      try {
        await this.write(batch);
      } catch (error) {
        this.failures++;
        const unavailable = isDatabaseUnavailable(error);
        if (!unavailable && ++this.headAttempts >= (this.options.maxAttempts ?? 5)) {
          this.headAttempts = 0;
          this.drop(batch.length, 'the database refused the batch', error);
        } else {
          this.queue.unshift(...batch);
          this.trim();
          if (this.failures === 1) this.logger.warn({ err: error, table: this.table, queued: this.queue.length }, 'batched insert failed; retrying with backoff');
        }
        this.timer = this.timers.setTimeout(() => void this.flush(), this.retryDelay());
        return;
      }
      if (this.failures > 0) this.logger.warn({ table: this.table, attempts: this.failures + 1 }, 'batched insert landed after retries');
      this.failures = 0;
      this.headAttempts = 0;
    }
  }

  private retryDelay(): number {
    return backoffMs(this.failures, this.options.retryBaseMs ?? 250, this.options.retryMaxMs ?? 5_000);
  }

  /** Drops the oldest rows beyond maxQueued. */
  private trim(): void {
    const excess = this.queue.length - this.options.maxQueued;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.drop(excess, 'the backlog is full');
    }
  }

  private drop(count: number, reason: string, error?: unknown): void {
    this.dropped += count;
    this.options.onDropped?.(count);
    // Loud, but once per hundred rows at most: an outage with a full backlog drops a row per request.
    if (error || this.dropped === count || Math.floor((this.dropped - count) / 100) !== Math.floor(this.dropped / 100)) {
      this.logger.error({ err: error, table: this.table, dropped: count, dropped_total: this.dropped }, `${this.table} rows lost: ${reason}`);
    }
  }
}

export const requestLogColumns: readonly (keyof RequestLogEntry)[] = [
  'request_id',
  'account_id',
  'key_id',
  'method',
  'route',
  'model',
  'status',
  'duration_us',
  'charged_units',
  'created_at',
  'provider',
  'error_code',
  'error_message',
  'upstream_status',
  'source',
];
