// SQLite: the settle trigger puts a charge's usage record in `usage_outbox` (the record as the
// JSON the settle brought, and the charge it computed) instead of inserting it into
// `usage_records`; src/billing/usage-outbox.ts moves the rows over in batches.
//
// Why: a settle runs alone at one connection, its own commit, and every B-tree it touches is a
// page more in that commit. The usage record touched four (the table and its three indexes):
// the settle statement took 308 → 408 µs and the answer at one connection was 4% slower than
// before the record moved into the settle (docs/performance.md, "Turn about"). The outbox is one
// B-tree, appended at its end: the record still lands in the charge's commit — a process killed
// right after the settle cannot leave a charge without its record — and the indexes are written
// once per batch. Readers that need every record (usage report, reconcile) drain it first.
//
// The grouped settles' batch insert (src/db/hot-statements.ts, Companion) still writes
// usage_records directly: one statement per group already shares those pages. PostgreSQL's
// settle keeps its CTE (src/billing/hold-statements.ts): no trigger, nothing here.
import type { Knex } from 'knex';
import { isPostgres } from '../src/db/dialect.js';

// The columns as they are at this migration, written out (not imported from src/): a migration
// must keep doing what it did when later code changes the record.
const usageColumns = [
  'request_id',
  'account_id',
  'key_id',
  'endpoint',
  'model',
  'provider',
  'upstream_model',
  'status',
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'estimated',
  'latency_ms',
  'ttft_ms',
  'finish_reason',
  'created_at',
] as const;
const mediaColumns = ['images', 'characters', 'audio_seconds', 'video_seconds'] as const;

/** The settle trigger of 20261126110000 with its usage step replaced by `usage`. */
const settleTrigger = (usage: string) => `CREATE TRIGGER holds_settle AFTER UPDATE OF status ON holds WHEN OLD.status = 'active' AND NEW.status = 'settled'
   BEGIN
     UPDATE accounts SET balance_units = balance_units - NEW.charged_units, held_units = held_units - NEW.amount_units WHERE id = NEW.account_id;
     INSERT INTO ledger_transactions (account_id, kind, amount_units, balance_after_units, hold_id, model, description, request_id, created_at)
     SELECT NEW.account_id, 'charge', -NEW.charged_units, balance_units, NEW.id, NEW.model, NEW.description, NEW.request_id, NEW.closed_at
     FROM accounts WHERE id = NEW.account_id AND NEW.charged_units > 0;${usage}
     UPDATE holds SET usage_json = NULL WHERE id = NEW.id AND NEW.usage_json IS NOT NULL;
   END`;

const intoOutbox = settleTrigger(`
     INSERT INTO usage_outbox (charged_units, usage_json) SELECT NEW.charged_units, NEW.usage_json WHERE NEW.usage_json IS NOT NULL;`);

/** What 20261126110000 inserted: the record straight into usage_records. */
const intoUsageRecords = settleTrigger(`
     INSERT INTO usage_records (${usageColumns.join(', ')}, cost_units, ${mediaColumns.join(', ')})
     SELECT ${usageColumns.map((column) => `u->>'${column}'`).join(', ')}, NEW.charged_units, ${mediaColumns.map((column) => `COALESCE(u->>'${column}', 0)`).join(', ')}
     FROM (SELECT NEW.usage_json AS u) WHERE u IS NOT NULL;`);

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return; // SQLite only
  // A rowid table without other indexes: a settle appends to its last page.
  await knex.raw('CREATE TABLE usage_outbox (id INTEGER PRIMARY KEY, charged_units INTEGER NOT NULL, usage_json TEXT NOT NULL)');
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(intoOutbox);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return; // SQLite only
  // Records still waiting are moved first: going down loses none.
  await knex.raw(
    `INSERT INTO usage_records (${usageColumns.join(', ')}, cost_units, ${mediaColumns.join(', ')})
     SELECT ${usageColumns.map((column) => `usage_json->>'${column}'`).join(', ')}, charged_units, ${mediaColumns.map((column) => `COALESCE(usage_json->>'${column}', 0)`).join(', ')}
     FROM usage_outbox ORDER BY id`,
  );
  await knex.raw('DROP TRIGGER holds_settle');
  await knex.raw(intoUsageRecords);
  await knex.raw('DROP TABLE usage_outbox');
}
