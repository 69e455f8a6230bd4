// The usage records that SQLite settles leave in `usage_outbox` (migration 20261127190000):
// each is written in its charge's commit, so none is lost to a crash, and moved to
// `usage_records` here, many per transaction, so a settle does not write usage_records' three
// indexes on the answer's path.
//
// Who moves them: every serving process (serve, worker) on a timer, and once at its start (the
// rows a killed process left); any process that reads usage_records for a total (`gateway
// usage`, `gateway reconcile`) first, so a report never misses a charge's record. A move is one
// IMMEDIATE transaction (copy, then delete the same ids): two processes moving at once take
// turns, and each row is moved exactly once.
//
// PostgreSQL has no outbox: its settle writes usage_records in the same statement (a CTE costs
// no extra round trip there), so every function here is a no-op on it.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { isPostgres } from '../db/dialect.js';
import { withColumnDefault } from '../observability/batched-inserter.js';
import { usageRecordColumns, usageRecordDefaults } from './usage-record.js';

/** Rows moved per transaction: a long copy would hold the one SQLite connection from requests. */
const rowsPerMove = 500;

/** The usage_records value of `column` from an outbox row: cost_units is the charge the settle computed. */
const valueOf = (column: string): string => (column === 'cost_units' ? 'charged_units' : withColumnDefault(usageRecordDefaults, column, `usage_json ->> '${column}'`));

const copyRows = `INSERT INTO usage_records (${usageRecordColumns.join(', ')})
  SELECT ${usageRecordColumns.map(valueOf).join(', ')} FROM usage_outbox WHERE id <= ? ORDER BY id`;

/**
 * Moves every row of the outbox to usage_records; resolves with how many. Rows a settle adds
 * while it runs are moved too (it loops until a move finds fewer than a batch).
 */
export async function drainUsageOutbox(db: Knex): Promise<number> {
  if (isPostgres(db)) return 0;
  let moved = 0;
  for (;;) {
    // Looked at outside a transaction first: most calls find nothing and take no write lock.
    const [next] = (await db.raw('SELECT id FROM usage_outbox ORDER BY id LIMIT 1')) as { id: number }[];
    if (!next) return moved;
    const count = await db.transaction(async (transaction) => {
      const [last] = (await transaction.raw('SELECT MAX(id) AS id, COUNT(*) AS count FROM (SELECT id FROM usage_outbox ORDER BY id LIMIT ?)', [rowsPerMove])) as { id: number | null; count: number }[];
      if (last?.id == null) return 0;
      await transaction.raw(copyRows, [last.id]);
      await transaction.raw('DELETE FROM usage_outbox WHERE id <= ?', [last.id]);
      return Number(last.count);
    });
    moved += count;
    if (count < rowsPerMove) return moved;
  }
}

/** A serving process's mover: at start, every `intervalMs`, and at its stop. */
export class UsageOutbox {
  private timer: NodeJS.Timeout | undefined;
  private moving: Promise<void> = Promise.resolve();
  /** Whether the last move failed (logged once per outage, not per tick). */
  private failing = false;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly intervalMs = 250,
  ) {}

  /** Starts moving (no-op on PostgreSQL): now, then every interval. */
  start(): void {
    if (isPostgres(this.db) || this.timer) return;
    void this.drain();
    this.timer = setInterval(() => void this.drain(), this.intervalMs).unref();
  }

  /**
   * Moves what is waiting now; one move at a time per process. A failure (the database
   * unreachable) leaves the rows where they are, for the next tick: nothing is dropped.
   */
  drain(): Promise<void> {
    this.moving = this.moving.then(async () => {
      try {
        await drainUsageOutbox(this.db);
        if (this.failing) this.logger.warn('usage records moved again after failures');
        this.failing = false;
      } catch (error) {
        if (!this.failing) this.logger.warn({ err: error }, 'usage records could not be moved from the outbox; they stay there and are retried');
        this.failing = true;
      }
    });
    return this.moving;
  }

  /** Stops the timer after a last move (its failure is logged: the rows wait for the next process). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.drain(); // a no-op on PostgreSQL, as drainUsageOutbox is
  }
}
