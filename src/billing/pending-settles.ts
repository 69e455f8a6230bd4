// Settles (and releases) of finished requests that could not reach the database. The upstream
// work was delivered, so the charge must not be lost: a settle that fails is kept here and
// retried in the background with backoff until it lands, while the client gets its response
// at once. Exactly once: the settle statement closes the hold only `WHERE status = 'active'`
// and writes the one charge of that hold (unique ledger_one_charge_per_hold), so a retry after
// an ambiguous failure (the COMMIT happened, its answer was lost) finds the hold settled and
// charges nothing more.
//
// The list lives in memory and is bounded (`cap`): a settle beyond it is not kept — logged as
// an error, counted (gateway_settles_dropped_total) — and its hold stays active until the
// holds.ttl sweep releases it uncharged (so does a hold whose settle was still pending when
// the process died: the peers' owner sweep releases it). The client is never charged twice;
// in those cases it is not charged at all.
import type { Knex } from 'knex';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../observability/logger.js';
import { backoffMs, retryUntil } from '../util/retry-until.js';
import { HoldClosedError } from './errors.js';
import type { Hold, HoldOptions, Ledger, SettleDetails, Settlement } from './ledger.js';

export interface PendingSettlesOptions {
  /** Settles and releases kept for retry at most. */
  readonly cap: number;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Told the list's size when it changes, and each settle that could not be kept (metrics). */
  readonly onSize?: (size: number) => void;
  readonly onDropped?: (count: number) => void;
}

type Pending =
  | { readonly kind: 'settle'; readonly holdId: string; readonly actualUnits: bigint; readonly details: SettleDetails; readonly owedUnits: bigint }
  | { readonly kind: 'release'; readonly holdId: string };

/** Pending entries retried together (they group into few commits: src/db/hot-statements.ts). */
const retryGroup = 100;

export class PendingSettles {
  private readonly pending: Pending[] = [];
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private retrying: Promise<void> | undefined;
  private closing: Promise<number> | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly logger: Logger,
    private readonly options: PendingSettlesOptions,
  ) {}

  get size(): number {
    return this.pending.length;
  }

  /**
   * Settles the hold now, or — when the database cannot take it — keeps the settle for retry and
   * answers with what it will charge (min(actual, held)). `deferred` tells which. A hold already
   * closed (released by a sweep) throws HoldClosedError, as Ledger.settle does.
   */
  async settle(hold: Hold, actualUnits: bigint, details: SettleDetails = {}): Promise<Settlement & { deferred: boolean }> {
    try {
      return { ...(await this.ledger.settle(hold.id, actualUnits, details)), deferred: false };
    } catch (error) {
      if (error instanceof HoldClosedError) throw error;
      const owedUnits = actualUnits < hold.amountUnits ? actualUnits : hold.amountUnits;
      const kept = this.keep({ kind: 'settle', holdId: hold.id, actualUnits, details, owedUnits }, error);
      return { chargedUnits: kept ? owedUnits : 0n, capped: actualUnits > hold.amountUnits, deferred: true };
    }
  }

  /**
   * Places a hold (Ledger.hold). When the statement fails otherwise than by a refusal — the
   * connection cut during it — the hold may have been committed with its answer lost: the
   * request fails (503), so a release of that hold id is kept for retry (a no-op if it never
   * landed). Without it such a hold stayed active until holds.ttl under a live process (the
   * chaos suite found one in about five PostgreSQL cuts).
   */
  hold(accountId: string, amountUnits: bigint, options: Omit<HoldOptions, 'within' | 'ifUncertain'>): Promise<Hold> {
    return this.ledger.hold(accountId, amountUnits, { ...options, ifUncertain: this.releaseUncertain });
  }

  private readonly releaseUncertain = (holdId: string, error: unknown): void => {
    this.keep({ kind: 'release', holdId }, error);
  };

  /** Releases the hold now, or keeps the release for retry when the database cannot take it. */
  async release(holdId: string): Promise<void> {
    try {
      await this.ledger.release(holdId);
    } catch (error) {
      this.keep({ kind: 'release', holdId }, error);
    }
  }

  /**
   * Settles inside the caller's transaction (a job's end, written with its job row): nothing is
   * kept for retry, since a transaction that fails rolls the job's end back with it and the job
   * is taken up again. HoldClosedError as Ledger.settle.
   */
  settleWithin(trx: Knex.Transaction, holdId: string, actualUnits: bigint, details: SettleDetails = {}): Promise<Settlement> {
    return this.ledger.settle(holdId, actualUnits, { ...details, within: trx });
  }

  /** Places a hold inside the caller's transaction (a job created with its hold): a failure rolls both back. */
  holdWithin(trx: Knex.Transaction, accountId: string, amountUnits: bigint, options: Omit<HoldOptions, 'within' | 'ifUncertain' | 'instanceId'>): Promise<Hold> {
    return this.ledger.hold(accountId, amountUnits, { ...options, within: trx });
  }

  /** Releases inside the caller's transaction (a job failed or cancelled, with its job row). */
  async releaseWithin(trx: Knex.Transaction, holdId: string): Promise<void> {
    await this.ledger.release(holdId, { within: trx });
  }

  /**
   * For a graceful stop: retries until nothing is pending or `deadlineMs` passed. Returns how
   * many are left (their holds stay active: see the top of this file).
   */
  close(deadlineMs: number): Promise<number> {
    this.closing ??= this.drain(deadlineMs);
    return this.closing;
  }

  private async drain(deadlineMs: number): Promise<number> {
    const until = Date.now() + deadlineMs;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.retrying;
    await retryUntil(until, {
      attempt: () => this.retryAll(),
      done: () => this.pending.length === 0,
      delayMs: () => this.delay(),
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    const left = this.pending.length;
    if (left > 0) {
      const owed = this.pending.reduce((sum, entry) => sum + (entry.kind === 'settle' ? entry.owedUnits : 0n), 0n);
      this.logger.error({ left, owed_units: String(owed), holds: this.pending.map((entry) => entry.holdId) }, 'stopping with settles that never reached the database: their holds will be released uncharged');
      this.options.onDropped?.(left);
    }
    return left;
  }

  private keep(entry: Pending, error: unknown): boolean {
    if (this.pending.length >= this.options.cap) {
      this.options.onDropped?.(1);
      this.logger.error(
        { err: error, hold_id: entry.holdId, owed_units: entry.kind === 'settle' ? String(entry.owedUnits) : undefined, cap: this.options.cap },
        `${entry.kind} failed and the pending list is full: the hold will be released uncharged by the holds.ttl sweep`,
      );
      return false;
    }
    this.pending.push(entry);
    this.options.onSize?.(this.pending.length);
    // An unreachable database is expected to pass; anything else (a bug, a constraint) is
    // retried all the same — the work was delivered — but said loudly, every time.
    if (!isDatabaseUnavailable(error)) this.logger.error({ err: error, hold_id: entry.holdId }, `${entry.kind} failed for another reason than an unreachable database; retrying in the background`);
    else if (this.pending.length === 1) this.logger.warn({ err: error, hold_id: entry.holdId }, `${entry.kind} failed; retrying in the background until the database takes it`);
    this.schedule();
    return true;
  }

  private schedule(): void {
    if (this.timer || this.retrying) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.retrying = this.retryAll().finally(() => {
        this.retrying = undefined;
        if (this.pending.length > 0) this.schedule();
      });
    }, this.delay());
    this.timer.unref();
  }

  private delay(): number {
    // Counted in failed passes: the first wait (nothing failed a pass yet) is the base.
    return backoffMs(this.failures + 1, this.options.retryBaseMs ?? 250, this.options.retryMaxMs ?? 5_000);
  }

  /** One pass over the list, a group at a time; stops at the first group that cannot reach the database. */
  private async retryAll(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending.slice(0, retryGroup);
      const outcomes = await Promise.all(group.map((entry) => this.attempt(entry)));
      const landed = new Set(group.filter((_, index) => outcomes[index]));
      for (let index = this.pending.length - 1; index >= 0; index--) if (landed.has(this.pending[index]!)) this.pending.splice(index, 1);
      this.options.onSize?.(this.pending.length);
      if (landed.size < group.length) {
        this.failures++;
        return;
      }
      if (this.failures > 0) this.logger.warn({ left: this.pending.length }, 'pending settles are landing again');
      this.failures = 0;
    }
  }

  /** True when the entry is done with (landed, or found already closed). */
  private async attempt(entry: Pending): Promise<boolean> {
    try {
      if (entry.kind === 'release') {
        await this.ledger.release(entry.holdId);
        return true;
      }
      await this.ledger.settle(entry.holdId, entry.actualUnits, entry.details);
      return true;
    } catch (error) {
      if (!(error instanceof HoldClosedError)) return false;
      // Closed already: an earlier attempt's COMMIT landed though its answer was lost (settled:
      // charged once, done), or a sweep released it first (the charge is lost: say so).
      const status = await this.ledger.holdStatus(entry.holdId).catch(() => undefined);
      if (status === undefined) return false;
      if (status !== 'settled' && entry.kind === 'settle') this.logger.error({ hold_id: entry.holdId, status, owed_units: String(entry.owedUnits) }, 'a pending settle found its hold released: the charge is lost');
      return true;
    }
  }
}
