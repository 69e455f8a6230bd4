// The request log table, written in batches off the request path: entries are queued and
// inserted together every flush interval (or when a batch fills). The queue is bounded: if
// the database is down, the oldest entries are dropped (and counted) instead of memory
// growing without limit.
import type { Knex } from 'knex';
import type { Logger } from './logger.js';

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

export class RequestLog {
  private queue: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  dropped = 0;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly options: { intervalMs: number; batchSize: number; maxQueued: number } = { intervalMs: 250, batchSize: 500, maxQueued: 20_000 },
  ) {}

  record(entry: RequestLogEntry): void {
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
          await this.db.batchInsert('request_log', batch, this.options.batchSize);
        } catch (error) {
          this.dropped += batch.length;
          this.logger.error({ err: error, lost: batch.length }, 'request log write failed');
          return;
        }
      }
    });
    return this.flushing;
  }
}
