// The ledger: every balance change is an append-only transaction row carrying balance_after,
// and every write here changes the account row before its ledger row. That row lock
// (PostgreSQL) or write lock (SQLite) serializes one account's money, so
// - a hold is placed by ONE conditional statement (available >= amount): no check-then-charge;
// - settle and release flip the hold's status conditionally first: each happens at most once;
// - transaction ids of one account are assigned in commit order (history cursors never skip).
// Hold, settle and release are single statements (hold-statements.ts): they run on every
// generating request, and each statement is a round trip.
// The schema's CHECK constraints refuse a negative balance even if this code were wrong.
import type { Knex } from 'knex';
import { keyRefusal } from '../auth/api-keys.js';
import { KeyBudgetExceededError, periodEnd, type BudgetPeriod } from '../auth/key-policy.js';
import { isPostgres } from '../db/dialect.js';
import { newId } from '../util/ids.js';
import { AccountNotFoundError, HoldClosedError, InsufficientBalanceError } from './errors.js';
import { hotStatements, runWithin, type Bindings, type Companion, type HotStatement, type HotStatements } from '../db/hot-statements.js';
import { insufficientBalanceMarker, placeHold, releaseHold, settleHold, usageOfCharge } from './hold-statements.js';
import type { UsageOfCharge } from './usage-record.js';
import { unitsFromSql, unitsToSql } from '../util/money.js';

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
}

export interface EntryDetails {
  readonly model?: string | null;
  readonly description?: string | null;
  readonly requestId?: string | null;
}

/**
 * What a credit is for, unique in the ledger (ledger_one_credit_per_source): `payment:yookassa:…`,
 * `code:…` (src/payments/credit-sources.ts). A second credit of one source fails on the index
 * and rolls its transaction back: money coming in is written once, whatever replays or races.
 */
export interface CreditDetails extends EntryDetails {
  readonly source?: string | null;
}

export interface HoldOptions extends EntryDetails {
  readonly ttlMs: number;
  readonly within?: Knex.Transaction;
  readonly keyId?: string;
  /** With keyId: the key's revision as the caller read it (KeyChangedError when it moved on). */
  readonly keyRevision?: number;
  /**
   * The key's spending budget: the hold also counts against the key's spend in the period
   * starting at periodStart (key_spend), in the same transaction, and is refused
   * (KeyBudgetExceededError) when that would pass limitUnits. Only for keys with a budget.
   */
  readonly budget?: KeyBudget;
  readonly instanceId?: string;
  /**
   * Told the hold's id when placing it failed otherwise than by a refusal (outside a caller's
   * transaction): it may have been placed all the same, so the caller must see to its release.
   */
  readonly ifUncertain?: (holdId: string, error: unknown) => void;
}

/** What a settle may also write: the request's usage record, in the same statement as the charge. */
export interface SettleDetails extends EntryDetails {
  readonly usage?: UsageOfCharge;
}

export interface KeyBudget {
  readonly keyId: string;
  readonly period: BudgetPeriod;
  readonly periodStart: number;
  readonly limitUnits: bigint;
}

/**
 * Adds a hold's amount to its key's spend of the period, only while the sum stays within the
 * budget (the key's budget as it is now, read in the statement): one conditional statement,
 * like the balance's reservation. Returns the new spend, or no row when refused.
 */
const addKeySpend = (postgres: boolean) =>
  postgres
    ? `INSERT INTO key_spend (key_id, period_start, spent_units)
         SELECT :keyId, CAST(:periodStart AS BIGINT), CAST(:amount AS BIGINT) WHERE CAST(:amount AS BIGINT) <= (SELECT budget_units FROM api_keys WHERE id = :keyId)
       ON CONFLICT (key_id, period_start) DO UPDATE SET spent_units = key_spend.spent_units + EXCLUDED.spent_units
         WHERE key_spend.spent_units + EXCLUDED.spent_units <= (SELECT budget_units FROM api_keys WHERE id = :keyId)
       RETURNING spent_units`
    : `INSERT INTO key_spend (key_id, period_start, spent_units)
         SELECT :keyId, :periodStart, :amount WHERE :amount <= (SELECT budget_units FROM api_keys WHERE id = :keyId)
       ON CONFLICT (key_id, period_start) DO UPDATE SET spent_units = spent_units + excluded.spent_units
         WHERE spent_units + excluded.spent_units <= (SELECT budget_units FROM api_keys WHERE id = :keyId)
       RETURNING spent_units`;

export class Ledger {
  /** Runs hold, settle and release outside a caller's transaction. */
  private readonly statements: HotStatements;

  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = hotStatements(db);
  }

  /**
   * Adds money (topup, bonus, referral, refund) or, with a negative adjustment, removes it.
   * `within`: the caller's transaction (an audit row written with it); `holdId`: the hold whose
   * charge a refund gives back (ledger_one_charge_per_hold then allows one refund per charge).
   * `source`: the credit's unique source. Money taken back is negative: an adjustment, or a
   * `refund` or `referral` with a source (a payment refunded to the customer, the referral
   * credit it had earned), never below what running requests hold.
   */
  async credit(
    accountId: string,
    amountUnits: bigint,
    kind: CreditKind,
    details: CreditDetails & { within?: Knex.Transaction; holdId?: string } = {},
  ): Promise<{ transactionId: string; balanceUnits: bigint }> {
    if (amountUnits === 0n) throw new RangeError('amount must not be zero');
    const mayTakeBack = kind === 'adjustment' || ((kind === 'refund' || kind === 'referral') && details.source);
    if (amountUnits < 0n && !mayTakeBack) throw new RangeError(`a ${kind} must be positive`);
    const write = async (trx: Knex.Transaction) => {
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
      const transactionId = await this.insertTransaction(trx, accountId, kind, amountUnits, balanceUnits, details.holdId ?? null, details);
      return { transactionId, balanceUnits };
    };
    return details.within ? write(details.within) : this.db.transaction(write);
  }

  /**
   * Reserves `amountUnits` for a request about to go upstream, or throws InsufficientBalanceError.
   * One statement (see hold-statements.ts). `within`: an outer transaction to join (a job row
   * written with its hold, atomically). `keyId`: the API key the request came with, re-checked
   * by the same statement (KeyNotLiveError when it was revoked: a cached key's revocation;
   * AccountDisabledError when its account was disabled).
   * `instanceId`: the serving process whose request this hold is (hold-owners.ts releases it
   * if that process dies); absent for a job's hold, which its job settles or releases.
   */
  async hold(
    accountId: string,
    amountUnits: bigint,
    options: HoldOptions,
  ): Promise<Hold> {
    if (amountUnits <= 0n) throw new RangeError('a hold must be positive');
    const { budget } = options;
    if (budget && !options.within) {
      // A key with a budget: the hold and the key's spend in one transaction, the account's row
      // locked first (as settle and release lock it before key_spend: no lock-order deadlock).
      return this.db.transaction((trx) => this.hold(accountId, amountUnits, { ...options, within: trx }));
    }
    const createdAt = this.now();
    const hold: Hold = { id: newId('hold'), accountId, amountUnits, expiresAt: createdAt + options.ttlMs };
    let placed: unknown[];
    try {
      placed = await this.run(options.within, placeHold, {
        id: hold.id,
        account: accountId,
        amount: unitsToSql(amountUnits),
        model: options.model ?? null,
        requestId: options.requestId ?? null,
        description: options.description ?? null,
        createdAt,
        expiresAt: hold.expiresAt,
        keyId: options.keyId ?? null,
        keyRevision: options.keyRevision ?? null,
        instanceId: options.instanceId ?? null,
        budgetKeyId: budget?.keyId ?? null,
        budgetPeriodStart: budget?.periodStart ?? null,
      });
    } catch (error) {
      if (!(error instanceof Error && error.message.includes(insufficientBalanceMarker))) {
        // The statement may have committed with its answer lost (a connection cut after COMMIT).
        if (!options.within) options.ifUncertain?.(hold.id, error);
        throw error;
      }
      placed = [];
    }
    if (placed.length === 0) {
      const db = options.within ?? this.db;
      if (options.keyId !== undefined) {
        const refusal = await keyRefusal(db, options.keyId, options.keyRevision);
        if (refusal) throw refusal;
      }
      const summary = await this.balanceWithin(db, accountId);
      throw new InsufficientBalanceError(amountUnits, summary.availableUnits);
    }
    if (budget && options.within) {
      const trx = options.within;
      const postgres = isPostgres(trx);
      const result = await trx.raw(addKeySpend(postgres), { keyId: budget.keyId, periodStart: budget.periodStart, amount: unitsToSql(amountUnits) });
      const rows = (postgres ? result.rows : result) as unknown[];
      if (rows.length === 0) {
        // Refused: the caller's transaction rolls the hold back with it.
        const spent: { spent_units: unknown } | undefined = await trx('key_spend').where({ key_id: budget.keyId, period_start: budget.periodStart }).first('spent_units');
        const key: { budget_units: unknown } | undefined = await trx('api_keys').where({ id: budget.keyId }).first('budget_units');
        throw new KeyBudgetExceededError(
          budget.keyId,
          budget.period,
          key?.budget_units === null || key?.budget_units === undefined ? budget.limitUnits : unitsFromSql(key.budget_units as string | number),
          amountUnits,
          spent ? unitsFromSql(spent.spent_units as string | number) : 0n,
          periodEnd(budget.period, budget.periodStart),
        );
      }
    }
    return hold;
  }

  /**
   * Charges the actual cost and releases the hold, in one statement, once. The charge is
   * capped at the held amount: the hold is the worst case the client was allowed to spend.
   * A zero actual cost writes no ledger row, it only releases. `details` replace the hold's
   * model, description and request id on the charge (and the closed hold) when given; a
   * `usage` record is written with the charge (its cost_units = the charge), or not at all.
   */
  async settle(holdId: string, actualUnits: bigint, details: SettleDetails & { within?: Knex.Transaction } = {}): Promise<Settlement> {
    if (actualUnits < 0n) throw new RangeError('an actual cost cannot be negative');
    const bindings = {
      id: holdId,
      actual: unitsToSql(actualUnits),
      closedAt: this.now(),
      model: details.model ?? null,
      description: details.description ?? null,
      requestId: details.requestId ?? null,
      uJson: null,
    };
    const rows = (await this.run(details.within, settleHold, bindings, details.usage && usageOfCharge(bindings, details.usage))) as { amount_units: string | number; charged_units: string | number }[];
    if (rows.length === 0) throw new HoldClosedError(holdId);
    return { chargedUnits: unitsFromSql(rows[0]!.charged_units), capped: actualUnits > unitsFromSql(rows[0]!.amount_units) };
  }

  /** Gives the held money back without charging. Returns false when the hold was already closed. */
  async release(holdId: string, options: { within?: Knex.Transaction } = {}): Promise<boolean> {
    const rows = await this.run(options.within, releaseHold, { id: holdId, closedAt: this.now() });
    return rows.length > 0;
  }

  /** The hold's status (active | settled | released), or null when there is no such hold. */
  async holdStatus(holdId: string): Promise<string | null> {
    const row: { status: string } | undefined = await this.db('holds').select('status').where({ id: holdId }).first();
    return row?.status ?? null;
  }

  /** Runs one of the hold statements, inside the caller's transaction when given; the rows it returned. */
  private run(within: Knex.Transaction | undefined, statement: HotStatement, bindings: Bindings, companion?: Companion): Promise<unknown[]> {
    return within ? runWithin(within, statement, bindings, companion) : this.statements.run(statement, bindings, companion);
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
    details: CreditDetails,
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
        source: details.source ?? null,
        created_at: this.now(),
      })
      .returning(['id']);
    return String(row.id);
  }
}
