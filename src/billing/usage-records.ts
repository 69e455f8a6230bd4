// Where usage records come from, as one thing to record, flush and close: the uncharged
// requests' records, batched in the process (a failed or free request has no settle to carry
// its record), and the charged ones that SQLite settles leave in the outbox (usage-outbox.ts).
// `flush()` lands both: after it, usage_records holds every record of what this process did.
import type { BatchedInserter } from '../observability/batched-inserter.js';
import type { UsageRecord } from './usage-record.js';
import type { UsageOutbox } from './usage-outbox.js';

export class UsageRecords {
  constructor(
    private readonly uncharged: BatchedInserter<UsageRecord>,
    private readonly outbox: UsageOutbox,
  ) {}

  /** The record of a request that was not charged (written in the next batch). */
  record(entry: UsageRecord): void {
    this.uncharged.record(entry);
  }

  /** Starts moving the outbox (a serving process, once it has registered). */
  start(): void {
    this.outbox.start();
  }

  /** Writes the queued records and moves the outbox's. */
  async flush(): Promise<void> {
    await Promise.all([this.uncharged.flush(), this.outbox.drain()]);
  }

  /** For a graceful stop: as BatchedInserter.close (how many uncharged records were dropped), then a last move of the outbox. */
  async close(deadlineMs: number): Promise<number> {
    const dropped = await this.uncharged.close(deadlineMs);
    await this.outbox.close();
    return dropped;
  }
}
