// Media units on usage records (issue 18: `gateway usage` shows them, `gateway reconcile` prices
// them again). A media or job charge now writes a usage record with its charge, as a chat charge
// does: the images it returned, the characters of speech, the seconds of audio (transcription,
// music) or video it was charged for; embeddings and decisions keep their tokens in the token
// columns. Whole units as charged (a transcription is charged per started second). Older rows: 0.
//
// SQLite: the settle trigger (20261125160000) names the columns it inserts; it is replaced by
// one that carries these too (absent from the JSON: 0). PostgreSQL's settle statement names them
// in code (src/billing/hold-statements.ts).
import type { Knex } from 'knex';
import { isPostgres } from '../src/db/dialect.js';

const mediaColumns = ['images', 'characters', 'audio_seconds', 'video_seconds'] as const;

/** The settle trigger of 20261125160000, its usage insert carrying `extraColumns`. */
function settleTrigger(extraColumns: readonly string[]): string {
  const columns = extraColumns.map((column) => `, ${column}`).join('');
  const values = extraColumns.map((column) => `, COALESCE(u->>'${column}', 0)`).join('');
  return `CREATE TRIGGER holds_settle AFTER UPDATE OF status ON holds WHEN OLD.status = 'active' AND NEW.status = 'settled'
   BEGIN
     UPDATE accounts SET balance_units = balance_units - NEW.charged_units, held_units = held_units - NEW.amount_units WHERE id = NEW.account_id;
     INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
     SELECT NEW.account_id, 'charge', -NEW.charged_units, balance_units, NEW.id, NEW.model, NEW.description, NEW.request_id, NEW.closed_at
     FROM accounts WHERE id = NEW.account_id AND NEW.charged_units > 0;
     INSERT INTO usage_records (request_id, account_id, key_id, endpoint, model, provider, upstream_model, status, input_tokens,
       cached_input_tokens, cache_write_input_tokens, output_tokens, reasoning_tokens, cost_units, estimated, latency_ms, ttft_ms,
       finish_reason, created_at${columns})
     SELECT u->>'request_id', u->>'account_id', u->>'key_id', u->>'endpoint', u->>'model', u->>'provider', u->>'upstream_model',
       u->>'status', u->>'input_tokens', u->>'cached_input_tokens', u->>'cache_write_input_tokens', u->>'output_tokens',
       u->>'reasoning_tokens', NEW.charged_units, u->>'estimated', u->>'latency_ms', u->>'ttft_ms', u->>'finish_reason', u->>'created_at'${values}
     FROM (SELECT NEW.usage_json AS u) WHERE u IS NOT NULL;
     UPDATE holds SET usage_json = NULL WHERE id = NEW.id AND NEW.usage_json IS NOT NULL;
   END`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('usage_records', (table) => {
    for (const column of mediaColumns) table.integer(column).notNullable().defaultTo(0);
  });
  if (isPostgres(knex)) return;
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(settleTrigger(mediaColumns));
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) {
    await knex.raw('DROP TRIGGER holds_settle');
    await knex.raw(settleTrigger([]));
  }
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds a SQLite table.
  for (const column of [...mediaColumns].reverse()) await knex.raw(`ALTER TABLE usage_records DROP COLUMN ${column}`);
}
