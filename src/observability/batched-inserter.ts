// Append-only records written in batches off the request path (the request log, usage
// records): entries are queued and inserted together every flush interval (or when a batch
// fills). The queue is bounded: if the database is down, the oldest entries are dropped (and
// counted) instead of memory growing without limit.
//
// A batch is ONE prepared statement with the rows as one JSON parameter (SQLite's json_each,
// PostgreSQL's json_populate_recordset over the table's own row type), run as a hot statement
// (src/db/hot-statements.ts): it commits with the holds and settles of the moment instead of
// in a transaction of its own, and no SQL is built per batch (knex's batchInsert built a
// statement of rows × columns placeholders every time: ~9% of the bytes allocated per chat
// request).
import type { Knex } from 'knex';
import { hotStatements, type HotStatement } from '../db/hot-statements.js';
import type { Logger } from './logger.js';

/** INSERT of the rows of a JSON array (`:rows`) into `table`'s `columns`. */
export function insertRowsStatement(table: string, columns: readonly string[]): HotStatement {
  const list = columns.join(', ');
  return {
    writes: true,
    sqlite: `INSERT INTO ${table} (${list}) SELECT ${columns.map((column) => `value ->> '${column}'`).join(', ')} FROM json_each(:rows) ORDER BY key`,
    pg: `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, CAST(:rows AS json)) WITH ORDINALITY AS rows ORDER BY rows.ordinality`,
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
}

export class BatchedInserter<Row extends object> {
  private queue: Row[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly insert: HotStatement;
  dropped = 0;

  constructor(
    private readonly db: Knex,
    private readonly table: string,
    columns: readonly (keyof Row & string)[],
    private readonly logger: Logger,
    private readonly options: { intervalMs: number; batchSize: number; maxQueued: number } = { intervalMs: 250, batchSize: 500, maxQueued: 20_000 },
  ) {
    this.insert = insertRowsStatement(table, columns);
  }

  record(entry: Row): void {
    if (this.queue.length >= this.options.maxQueued) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(entry);
    if (this.queue.length >= this.options.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.intervalMs).unref();
  }

  /** Writes everything queued so far; resolves when it is in the database. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.batchSize);
        try {
          await hotStatements(this.db).run(this.insert, { rows: JSON.stringify(batch) });
        } catch (error) {
          this.dropped += batch.length;
          this.logger.error({ err: error, table: this.table, lost: batch.length }, 'batched insert failed');
          return;
        }
      }
    });
    return this.flushing;
  }
}

/** A row of the usage_records table. */
export interface UsageRecord {
  request_id: string;
  account_id: string;
  key_id: string;
  endpoint: string;
  model: string;
  provider: string;
  upstream_model: string;
  status: 'completed' | 'aborted' | 'failed';
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_units: number;
  estimated: boolean;
  latency_ms: number;
  ttft_ms: number | null;
  finish_reason: string | null;
  created_at: number;
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
];

export const usageRecordColumns: readonly (keyof UsageRecord)[] = [
  'request_id',
  'account_id',
  'key_id',
  'endpoint',
  'model',
  'provider',
  'upstream_model',
  'status',
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cost_units',
  'estimated',
  'latency_ms',
  'ttft_ms',
  'finish_reason',
  'created_at',
];
