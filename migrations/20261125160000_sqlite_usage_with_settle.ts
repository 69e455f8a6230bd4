// SQLite: a charged request's usage record is written by the settle statement itself, as
// PostgreSQL's settle writes it in a CTE (src/billing/hold-statements.ts). The settle UPDATE
// sets holds.usage_json (the record as JSON) and the settle trigger inserts the record with the
// charge it computed, then clears the column: one statement, one commit, no extra round trip
// on the hot path. PostgreSQL needs nothing here.
import type { Knex } from 'knex';
import { isPostgres } from '../src/db/dialect.js';

/** The settle trigger of 20261124010000 (charge, ledger row), with `usage` added before its END. */
const settleTrigger = (usage: string) => `CREATE TRIGGER holds_settle AFTER UPDATE OF status ON holds WHEN OLD.status = 'active' AND NEW.status = 'settled'
   BEGIN
     UPDATE accounts SET balance_units = balance_units - NEW.charged_units, held_units = held_units - NEW.amount_units WHERE id = NEW.account_id;
     INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
     SELECT NEW.account_id, 'charge', -NEW.charged_units, balance_units, NEW.id, NEW.model, NEW.description, NEW.request_id, NEW.closed_at
     FROM accounts WHERE id = NEW.account_id AND NEW.charged_units > 0;${usage}
   END`;

const settleWithUsage = settleTrigger(`
     INSERT INTO usage_records (request_id, account_id, key_id, endpoint, model, provider, upstream_model, status, input_tokens,
       cached_input_tokens, cache_write_input_tokens, output_tokens, reasoning_tokens, cost_units, estimated, latency_ms, ttft_ms,
       finish_reason, created_at)
     SELECT u->>'request_id', u->>'account_id', u->>'key_id', u->>'endpoint', u->>'model', u->>'provider', u->>'upstream_model',
       u->>'status', u->>'input_tokens', u->>'cached_input_tokens', u->>'cache_write_input_tokens', u->>'output_tokens',
       u->>'reasoning_tokens', NEW.charged_units, u->>'estimated', u->>'latency_ms', u->>'ttft_ms', u->>'finish_reason', u->>'created_at'
     FROM (SELECT NEW.usage_json AS u) WHERE u IS NOT NULL;
     UPDATE holds SET usage_json = NULL WHERE id = NEW.id AND NEW.usage_json IS NOT NULL;`);

const settleWithoutUsage = settleTrigger('');

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return; // SQLite only
  await knex.raw('ALTER TABLE holds ADD COLUMN usage_json TEXT');
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(settleWithUsage);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return; // SQLite only
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(settleWithoutUsage);
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds the table, dropping its triggers.
  await knex.raw('ALTER TABLE holds DROP COLUMN usage_json');
}
