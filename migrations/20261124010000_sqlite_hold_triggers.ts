// SQLite: hold, settle and release become single statements on `holds` (src/billing/
// hold-statements.ts); these triggers move the money in the same statement. PostgreSQL does
// the same with data-modifying CTEs and needs nothing here.
import type { Knex } from 'knex';
import { isPostgres } from '../src/db/dialect.js';

const triggers = [
  // Reserve: refused (the INSERT is undone) unless balance - held covers the amount.
  `CREATE TRIGGER holds_reserve AFTER INSERT ON holds WHEN NEW.status = 'active'
   BEGIN
     SELECT RAISE(ABORT, 'insufficient_balance')
     WHERE COALESCE((SELECT balance_units - held_units FROM accounts WHERE id = NEW.account_id), -1) < NEW.amount_units;
     UPDATE accounts SET held_units = held_units + NEW.amount_units WHERE id = NEW.account_id;
   END`,
  // Settle: charge what the hold was closed with, give the rest back, write the charge row.
  `CREATE TRIGGER holds_settle AFTER UPDATE OF status ON holds WHEN OLD.status = 'active' AND NEW.status = 'settled'
   BEGIN
     UPDATE accounts SET balance_units = balance_units - NEW.charged_units, held_units = held_units - NEW.amount_units WHERE id = NEW.account_id;
     INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
     SELECT NEW.account_id, 'charge', -NEW.charged_units, balance_units, NEW.id, NEW.model, NEW.description, NEW.request_id, NEW.closed_at
     FROM accounts WHERE id = NEW.account_id AND NEW.charged_units > 0;
   END`,
  // Release: give the held amount back.
  `CREATE TRIGGER holds_release AFTER UPDATE OF status ON holds WHEN OLD.status = 'active' AND NEW.status = 'released'
   BEGIN
     UPDATE accounts SET held_units = held_units - NEW.amount_units WHERE id = NEW.account_id;
   END`,
];

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return; // SQLite only
  for (const trigger of triggers) await knex.raw(trigger);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return; // SQLite only
  for (const name of ['holds_reserve', 'holds_settle', 'holds_release']) await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
}
