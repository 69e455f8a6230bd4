// Append-only records written in batches off the request path (the request log, usage
// records): entries are queued and inserted together every flush interval (or when a batch
// fills). The queue is bounded: if the database is down, the oldest entries are dropped (and
// counted) instead of memory growing without limit.
import type { Knex } from 'knex';
import type { Logger } from './logger.js';

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
  dropped = 0;

  constructor(
    private readonly db: Knex,
    private readonly table: string,
    private readonly logger: Logger,
    private readonly options: { intervalMs: number; batchSize: number; maxQueued: number } = { intervalMs: 250, batchSize: 500, maxQueued: 20_000 },
  ) {}

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
          await this.db.batchInsert(this.table, batch as Record<string, unknown>[], this.options.batchSize);
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
