// The hold, settle and release of the ledger as ONE statement each, per database. A charged
// request pays a database round trip per statement, so these three — on every generating
// request — are single statements, run by src/db/hot-statements.ts (prepared once, grouped
// into one commit with other requests' statements):
// - PostgreSQL: data-modifying CTEs chain the conditional steps in one atomic statement.
// - SQLite (no data-modifying CTEs): the statement touches `holds` only and the triggers of
//   migration 20261124010000 move the money in the same statement — reserve on INSERT
//   (refused with RAISE(ABORT, 'insufficient_balance') when `balance - held < amount`),
//   charge and write the ledger row on the status change to settled, give back on released.
// Both keep the rules of ledger.ts: the reservation is one conditional step, a hold closes
// at most once (`WHERE status = 'active'`), the account row is written before the ledger row
// gets its id (ids of one account follow commit order), the CHECK constraints stay the net.

import type { Bindings, Companion, HotStatement } from '../db/hot-statements.js';
import { insertRowsStatement, withColumnDefault } from '../observability/batched-inserter.js';
import { usageRecordColumns, usageRecordDefaults, type UsageOfCharge } from './usage-record.js';

/**
 * Bindings: id, account_id, amount, model, request_id, description, created_at, expires_at,
 * instanceId (the serving process that owns the hold, null for a job's: see hold-owners.ts), and
 * keyId: when not null, the hold is placed only while that API key is unrevoked, still at
 * keyRevision when given (not changed by `keys update` since the caller read it) and its account
 * is not disabled (the check a cached key gets, in the same statement). budgetKeyId and
 * budgetPeriodStart: the key_spend row the hold counts against (null for a key without a
 * budget), which settle and release bring back to the charge. Returns the id when placed, no row when refused
 * (PostgreSQL: balance or key; SQLite: key — a short balance raises insufficient_balance).
 */
export const placeHold: HotStatement = {
  writes: true,
  pg: `WITH reserved AS (
         UPDATE accounts SET held_units = held_units + CAST(:amount AS BIGINT)
         WHERE id = :account AND balance_units - held_units >= CAST(:amount AS BIGINT)
           AND (CAST(:keyId AS TEXT) IS NULL OR (disabled_at IS NULL AND EXISTS (SELECT 1 FROM api_keys WHERE id = :keyId AND revoked_at IS NULL AND (CAST(:keyRevision AS INTEGER) IS NULL OR revision = CAST(:keyRevision AS INTEGER)))))
         RETURNING id
       )
       INSERT INTO holds (id, account_id, amount_units, status, model, request_id, description, created_at, expires_at, instance_id, budget_key_id, budget_period_start)
       SELECT :id, id, :amount, 'active', :model, :requestId, :description, :createdAt, :expiresAt, :instanceId, :budgetKeyId, :budgetPeriodStart FROM reserved RETURNING id`,
  sqlite: `INSERT INTO holds (id, account_id, amount_units, status, model, request_id, description, created_at, expires_at, instance_id, budget_key_id, budget_period_start)
            SELECT :id, :account, :amount, 'active', :model, :requestId, :description, :createdAt, :expiresAt, :instanceId, :budgetKeyId, :budgetPeriodStart
            WHERE :keyId IS NULL OR EXISTS (SELECT 1 FROM api_keys k JOIN accounts a ON a.id = k.account_id
              WHERE k.id = :keyId AND k.revoked_at IS NULL AND (:keyRevision IS NULL OR k.revision = :keyRevision) AND a.disabled_at IS NULL) RETURNING id`,
};

const usageColumns = usageRecordColumns.join(', ');

/**
 * The usage records of a group's charges (src/db/hot-statements.ts, Companion), in the group's
 * commit: the rows as a JSON array in :rows, each with the cost_units its settle charged. The
 * same columns and defaults as every other usage record (absent media units: 0).
 */
export const insertUsageOfCharges: HotStatement = insertRowsStatement('usage_records', usageRecordColumns, undefined, usageRecordDefaults);

/** A usage column in the PostgreSQL settle: cost_units is the charge, absent media units 0. */
const usageOfMoved = (column: string): string => (column === 'cost_units' ? 'moved.charged_units' : withColumnDefault(usageRecordDefaults, column, `u.${column}`));

/**
 * The usage record of a settle (settleBindings: the settle's bindings, uJson null): written by
 * the settle itself when it runs alone (uJson), or with its group's others (insertUsageOfCharges).
 */
export function usageOfCharge(settleBindings: Bindings, usage: UsageOfCharge): Companion {
  return {
    batch: insertUsageOfCharges,
    alone: () => ({ ...settleBindings, uJson: JSON.stringify(usage) }),
    row: (returned) => ({ ...usage, cost_units: Number((returned as { charged_units: string | number }).charged_units) }),
  };
}

/**
 * Bindings: id, actual, closedAt, model, description, requestId (null keeps the hold's), and
 * uJson (usageOfCharge: a usage record written with the charge, or none). Returns
 * amount_units and charged_units, or no row when the hold was not active.
 */
export const settleHold: HotStatement = {
  writes: true,
  pg: `WITH closed AS (
         UPDATE holds SET status = 'settled', charged_units = LEAST(amount_units, CAST(:actual AS BIGINT)), closed_at = :closedAt,
           model = COALESCE(:model, model), description = COALESCE(:description, description), request_id = COALESCE(:requestId, request_id)
         WHERE id = :id AND status = 'active'
         RETURNING id, account_id, amount_units, charged_units, model, request_id, description, closed_at, budget_key_id, budget_period_start
       ), moved AS (
         UPDATE accounts SET balance_units = accounts.balance_units - closed.charged_units, held_units = accounts.held_units - closed.amount_units
         FROM closed WHERE accounts.id = closed.account_id
         RETURNING accounts.balance_units, closed.*
       ), spend AS (
         UPDATE key_spend SET spent_units = key_spend.spent_units - (moved.amount_units - moved.charged_units)
         FROM moved WHERE key_spend.key_id = moved.budget_key_id AND key_spend.period_start = moved.budget_period_start
         RETURNING key_spend.key_id
       ), entry AS (
         INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
         SELECT account_id, 'charge', -charged_units, balance_units, id, model, description, request_id, closed_at FROM moved WHERE charged_units > 0
         RETURNING id
       ), usage AS (
         INSERT INTO usage_records (${usageColumns})
         SELECT ${usageRecordColumns.map(usageOfMoved).join(', ')}
         FROM moved, jsonb_populate_record(NULL::usage_records, CAST(:uJson AS jsonb)) AS u
         WHERE CAST(:uJson AS jsonb) IS NOT NULL
         RETURNING id
       )
       SELECT amount_units, charged_units FROM moved`,
  // The settle trigger (migrations 20261125160000, 20261126110000, 20261127190000) puts the usage record
  // (usage_json) with the charge it computed in usage_outbox, then clears the column; usage-outbox.ts
  // moves it to usage_records.
  sqlite: `UPDATE holds SET status = 'settled', charged_units = MIN(amount_units, :actual), closed_at = :closedAt,
              model = COALESCE(:model, model), description = COALESCE(:description, description), request_id = COALESCE(:requestId, request_id),
              usage_json = :uJson
            WHERE id = :id AND status = 'active' RETURNING amount_units, charged_units`,
};

/** Bindings: id, closedAt. Returns a row when the hold was active and is now released. */
export const releaseHold: HotStatement = {
  writes: true,
  pg: `WITH closed AS (
         UPDATE holds SET status = 'released', charged_units = 0, closed_at = :closedAt WHERE id = :id AND status = 'active'
         RETURNING account_id, amount_units, budget_key_id, budget_period_start
       ), moved AS (
         UPDATE accounts SET held_units = accounts.held_units - closed.amount_units FROM closed WHERE accounts.id = closed.account_id
         RETURNING accounts.id, closed.amount_units, closed.budget_key_id, closed.budget_period_start
       ), spend AS (
         UPDATE key_spend SET spent_units = key_spend.spent_units - moved.amount_units
         FROM moved WHERE key_spend.key_id = moved.budget_key_id AND key_spend.period_start = moved.budget_period_start
         RETURNING key_spend.key_id
       )
       SELECT id FROM moved`,
  sqlite: `UPDATE holds SET status = 'released', charged_units = 0, closed_at = :closedAt WHERE id = :id AND status = 'active' RETURNING id`,
};

/** The SQLite error a refused reservation raises (see the migration's trigger). */
export const insufficientBalanceMarker = 'insufficient_balance';
