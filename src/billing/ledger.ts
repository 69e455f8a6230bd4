// The ledger: every balance change is an append-only transaction row carrying balance_after,
// and every transaction here starts with a conditional UPDATE of the account row. That row
// lock (PostgreSQL) or write lock (SQLite) serializes one account's money, so
// - a hold is placed by ONE conditional statement (available >= amount): no check-then-charge;
// - settle and release flip the hold's status conditionally first: each happens at most once;
// - transaction ids of one account are assigned in commit order (history cursors never skip).
// The schema's CHECK constraints refuse a negative balance even if this code were wrong.
import type { Knex } from 'knex';
import { newId } from '../util/ids.js';
import { AccountNotFoundError, HoldClosedError, InsufficientBalanceError } from './errors.js';
import { unitsFromSql, unitsToSql } from './money.js';

export const creditKinds = ['topup', 'bonus', 'referral', 'refund', 'adjustment'] as const;
export type CreditKind = (typeof creditKinds)[number];
export type TransactionKind = 'charge' | CreditKind;

export interface Hold {
  readonly id: string;
  readonly accountId: string;
  readonly amountUnits: bigint;
  readonly expiresAt: number;
}

export interface BalanceSummary {
  readonly accountId: string;
  readonly balanceUnits: bigint;
  readonly heldUnits: bigint;
  readonly availableUnits: bigint;
}

export interface Settlement {
  /** What was charged: min(actual, held amount). */
  readonly chargedUnits: bigint;
  /** True when the actual cost exceeded the hold and the excess was not charged. */
  readonly capped: boolean;
  readonly transactionId: string | null;
  readonly balanceUnits: bigint;
}

export interface EntryDetails {
  readonly model?: string | null;
  readonly description?: string | null;
  readonly requestId?: string | null;
}

export class Ledger {
  /** PostgreSQL runs hold and settle as single statements (see settleInOneStatement). */
  private readonly postgres: boolean;

  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {
    this.postgres = db.client.config.client === 'pg';
  }

  /** Adds money (topup, bonus, referral, refund) or, with a negative adjustment, removes it. */
  async credit(
    accountId: string,
    amountUnits: bigint,
    kind: CreditKind,
    details: EntryDetails = {},
  ): Promise<{ transactionId: string; balanceUnits: bigint }> {
    if (amountUnits === 0n) throw new RangeError('amount must not be zero');
    if (amountUnits < 0n && kind !== 'adjustment') throw new RangeError(`a ${kind} must be positive`);
    return this.db.transaction(async (trx) => {
      const amount = unitsToSql(amountUnits);
      const query = trx('accounts')
        .where({ id: accountId })
        .update({ balance_units: trx.raw('balance_units + ?', [amount]) })
        .returning(['balance_units']);
      // A negative adjustment may not eat into money that is held for running requests.
      if (amountUnits < 0n) query.andWhereRaw('balance_units + ? >= held_units', [amount]);
      const rows: { balance_units: string | number }[] = await query;
      if (rows.length === 0) {
        const summary = await this.balanceWithin(trx, accountId);
        throw new InsufficientBalanceError(-amountUnits, summary.availableUnits);
      }
      const balanceUnits = unitsFromSql(rows[0]!.balance_units);
      const transactionId = await this.insertTransaction(trx, accountId, kind, amountUnits, balanceUnits, null, details);
      return { transactionId, balanceUnits };
    });
  }

  /**
   * Reserves `amountUnits` for a request about to go upstream, or throws InsufficientBalanceError.
   * `within`: an outer transaction to join (a job row written with its hold, atomically).
   */
  async hold(accountId: string, amountUnits: bigint, options: EntryDetails & { ttlMs: number; within?: Knex.Transaction }): Promise<Hold> {
    if (amountUnits <= 0n) throw new RangeError('a hold must be positive');
    const amount = unitsToSql(amountUnits);
    const createdAt = this.now();
    const hold: Hold = { id: newId('hold'), accountId, amountUnits, expiresAt: createdAt + options.ttlMs };
    if (this.postgres && !options.within) {
      // One statement, atomic on its own: the conditional reservation and the hold row.
      const placed = await this.db.raw(
        `WITH reserved AS (
           UPDATE accounts SET held_units = held_units + ? WHERE id = ? AND balance_units - held_units >= ? RETURNING id
         )
         INSERT INTO holds (id, account_id, amount_units, status, model, request_id, description, created_at, expires_at)
         SELECT ?, id, ?, 'active', ?, ?, ?, ?, ? FROM reserved RETURNING id`,
        [amount, accountId, amount, hold.id, amount, options.model ?? null, options.requestId ?? null, options.description ?? null, createdAt, hold.expiresAt],
      );
      if (placed.rows.length === 0) {
        const summary = await this.balance(accountId);
        throw new InsufficientBalanceError(amountUnits, summary.availableUnits);
      }
      return hold;
    }
    await this.inTransaction(options.within, async (trx) => {
      const updated = await trx('accounts')
        .where({ id: accountId })
        .andWhereRaw('balance_units - held_units >= ?', [amount])
        .update({ held_units: trx.raw('held_units + ?', [amount]) });
      if (updated === 0) {
        const summary = await this.balanceWithin(trx, accountId);
        throw new InsufficientBalanceError(amountUnits, summary.availableUnits);
      }
      await trx('holds').insert({
        id: hold.id,
        account_id: accountId,
        amount_units: amount,
        status: 'active',
        model: options.model ?? null,
        request_id: options.requestId ?? null,
        description: options.description ?? null,
        created_at: createdAt,
        expires_at: hold.expiresAt,
      });
    });
    return hold;
  }

  /**
   * Charges the actual cost and releases the hold, in one transaction, once. The charge is
   * capped at the held amount: the hold is the worst case the client was allowed to spend.
   * A zero actual cost writes no ledger row, it only releases.
   */
  async settle(holdId: string, actualUnits: bigint, details: EntryDetails & { within?: Knex.Transaction } = {}): Promise<Settlement> {
    if (actualUnits < 0n) throw new RangeError('an actual cost cannot be negative');
    const actual = unitsToSql(actualUnits);
    if (this.postgres && !details.within) return this.settleInOneStatement(holdId, actualUnits, details);
    return this.inTransaction(details.within, async (trx) => {
      const closed: { account_id: string; amount_units: string | number; charged_units: string | number; model: string | null; request_id: string | null; description: string | null }[] =
        await trx('holds')
          .where({ id: holdId, status: 'active' })
          .update({
            status: 'settled',
            charged_units: trx.raw('CASE WHEN amount_units < ? THEN amount_units ELSE ? END', [actual, actual]),
            closed_at: this.now(),
          })
          .returning(['account_id', 'amount_units', 'charged_units', 'model', 'request_id', 'description']);
      if (closed.length === 0) throw new HoldClosedError(holdId);
      const hold = closed[0]!;
      const heldUnits = unitsFromSql(hold.amount_units);
      const chargedUnits = unitsFromSql(hold.charged_units);
      const rows: { balance_units: string | number }[] = await trx('accounts')
        .where({ id: hold.account_id })
        .update({
          balance_units: trx.raw('balance_units - ?', [unitsToSql(chargedUnits)]),
          held_units: trx.raw('held_units - ?', [unitsToSql(heldUnits)]),
        })
        .returning(['balance_units']);
      const balanceUnits = unitsFromSql(rows[0]!.balance_units);
      let transactionId: string | null = null;
      if (chargedUnits > 0n) {
        transactionId = await this.insertTransaction(trx, hold.account_id, 'charge', -chargedUnits, balanceUnits, holdId, {
          model: details.model ?? hold.model,
          description: details.description ?? hold.description,
          requestId: details.requestId ?? hold.request_id,
        });
      }
      return { chargedUnits, capped: actualUnits > heldUnits, transactionId, balanceUnits };
    });
  }

  /**
   * PostgreSQL: settle as ONE statement (a round trip instead of five). The steps are those of
   * the transaction above, chained through data-modifying CTEs: close the hold if it is still
   * active (the charge capped at its amount), move the money on the account row (its lock is
   * taken before the ledger row gets its id, so ids of one account still follow commit order),
   * and write the charge when there is one.
   */
  private async settleInOneStatement(holdId: string, actualUnits: bigint, details: EntryDetails): Promise<Settlement> {
    const now = this.now();
    const result = await this.db.raw(
      `WITH closed AS (
         UPDATE holds SET status = 'settled', charged_units = LEAST(amount_units, ?), closed_at = ?
         WHERE id = ? AND status = 'active'
         RETURNING account_id, amount_units, charged_units, model, request_id, description
       ), moved AS (
         UPDATE accounts SET balance_units = accounts.balance_units - closed.charged_units, held_units = accounts.held_units - closed.amount_units
         FROM closed WHERE accounts.id = closed.account_id
         RETURNING accounts.id AS account_id, accounts.balance_units, closed.amount_units, closed.charged_units, closed.model, closed.request_id, closed.description
       ), entry AS (
         INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
         SELECT account_id, 'charge', -charged_units, balance_units, ?, COALESCE(?, model), COALESCE(?, description), COALESCE(?, request_id), ?
         FROM moved WHERE charged_units > 0
         RETURNING id
       )
       SELECT moved.balance_units, moved.amount_units, moved.charged_units, (SELECT id FROM entry) AS transaction_id FROM moved`,
      [unitsToSql(actualUnits), now, holdId, holdId, details.model ?? null, details.description ?? null, details.requestId ?? null, now],
    );
    const row = result.rows[0] as { balance_units: string; amount_units: string; charged_units: string; transaction_id: string | null } | undefined;
    if (!row) throw new HoldClosedError(holdId);
    return {
      chargedUnits: unitsFromSql(row.charged_units),
      capped: actualUnits > unitsFromSql(row.amount_units),
      transactionId: row.transaction_id === null ? null : String(row.transaction_id),
      balanceUnits: unitsFromSql(row.balance_units),
    };
  }

  /** Gives the held money back without charging. Returns false when the hold was already closed. */
  async release(holdId: string, options: { within?: Knex.Transaction } = {}): Promise<boolean> {
    return this.inTransaction(options.within, async (trx) => {
      const closed: { account_id: string; amount_units: string | number }[] = await trx('holds')
        .where({ id: holdId, status: 'active' })
        .update({ status: 'released', charged_units: 0, closed_at: this.now() })
        .returning(['account_id', 'amount_units']);
      if (closed.length === 0) return false;
      await trx('accounts')
        .where({ id: closed[0]!.account_id })
        .update({ held_units: trx.raw('held_units - ?', [unitsToSql(unitsFromSql(closed[0]!.amount_units))]) });
      return true;
    });
  }

  /** Releases holds past their expiry (a crashed process never settled them). Returns how many. */
  async releaseExpired(limit = 500): Promise<number> {
    const expired: { id: string }[] = await this.db('holds')
      .select('id')
      .where({ status: 'active' })
      .andWhere('expires_at', '<', this.now())
      .orderBy('expires_at')
      .limit(limit);
    let released = 0;
    for (const { id } of expired) if (await this.release(id)) released++;
    return released;
  }

  /** Runs `work` in the caller's transaction when given one, else in a transaction of its own. */
  private inTransaction<T>(within: Knex.Transaction | undefined, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return within ? work(within) : this.db.transaction(work);
  }

  async balance(accountId: string): Promise<BalanceSummary> {
    return this.balanceWithin(this.db, accountId);
  }

  private async balanceWithin(db: Knex, accountId: string): Promise<BalanceSummary> {
    const row = await db('accounts').select('balance_units', 'held_units').where({ id: accountId }).first();
    if (!row) throw new AccountNotFoundError(accountId);
    const balanceUnits = unitsFromSql(row.balance_units);
    const heldUnits = unitsFromSql(row.held_units);
    return { accountId, balanceUnits, heldUnits, availableUnits: balanceUnits - heldUnits };
  }

  private async insertTransaction(
    trx: Knex.Transaction,
    accountId: string,
    kind: TransactionKind,
    amountUnits: bigint,
    balanceAfterUnits: bigint,
    holdId: string | null,
    details: EntryDetails,
  ): Promise<string> {
    const [row] = await trx('ledger_transactions')
      .insert({
        account_id: accountId,
        kind,
        amount_units: unitsToSql(amountUnits),
        balance_after_units: unitsToSql(balanceAfterUnits),
        hold_id: holdId,
        model: details.model ?? null,
        description: details.description ?? null,
        request_id: details.requestId ?? null,
        created_at: this.now(),
      })
      .returning(['id']);
    return String(row.id);
  }
}
