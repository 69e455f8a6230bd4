// SQLite: the settle's usage record moves out of the settle trigger into a statement of its
// own that runs right after the settle, in the same transaction (settleHold.sqliteFollowUp in
// src/billing/hold-statements.ts), bound field by field. It reached the trigger as JSON in
// holds.usage_json: serialized per request, parsed again field by field by SQLite, written into
// the hold's row and cleared again by the same statement (docs/performance.md). The column goes
// too. PostgreSQL needs nothing here.
import type { Knex } from 'knex';
import { isPostgres } from '../src/db/dialect.js';
import { mediaColumns, settleTrigger } from './20261126110000_media_usage.js';

/** The settle trigger of 20261124010000: the charge and its ledger row. */
const settleWithoutUsage = `CREATE TRIGGER holds_settle AFTER UPDATE OF status ON holds WHEN OLD.status = 'active' AND NEW.status = 'settled'
   BEGIN
     UPDATE accounts SET balance_units = balance_units - NEW.charged_units, held_units = held_units - NEW.amount_units WHERE id = NEW.account_id;
     INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
     SELECT NEW.account_id, 'charge', -NEW.charged_units, balance_units, NEW.id, NEW.model, NEW.description, NEW.request_id, NEW.closed_at
     FROM accounts WHERE id = NEW.account_id AND NEW.charged_units > 0;
   END`;

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return;
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(settleWithoutUsage);
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds the table, dropping its triggers.
  await knex.raw('ALTER TABLE holds DROP COLUMN usage_json');
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return;
  await knex.raw('ALTER TABLE holds ADD COLUMN usage_json TEXT');
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(settleTrigger(mediaColumns));
}
