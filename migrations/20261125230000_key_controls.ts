// Key controls (issue 18 item 1): expiry, a model allowlist, an IP allowlist and a spending
// budget per key, all changeable by `keys update` without reissuing the secret.
//
// - api_keys.revision: +1 on every `keys update`. A process serves the chat routes with keys
//   from its cache; the hold statement places the hold only while the key's revision is the one
//   the cache holds, so a change made elsewhere is seen on the very next request, the same way
//   a revocation is (src/auth/api-keys.ts).
// - api_keys.models / allowed_ips: comma-separated lists (null: any). budget_units (null: none)
//   per budget_period (day | week | month | total, UTC).
// - key_spend: what a key with a budget has charged + holds in one period (period_start: ms of
//   the period's UTC start, 0 for total). Incremented conditionally in the hold's transaction,
//   brought down to the charge by the settle and back by the release (the hold row names it:
//   holds.budget_key_id / budget_period_start). CHECK: never negative.
//
// SQLite: ADD COLUMN keeps the tables (and the hold triggers) as they are; two triggers move
// key_spend on settle and release, only for holds that name one.
import type { Knex } from 'knex';
import { isPostgres } from '../src/db/dialect.js';

const sqliteTriggers = [
  `CREATE TRIGGER holds_settle_key_spend AFTER UPDATE OF status ON holds
     WHEN OLD.status = 'active' AND NEW.status = 'settled' AND NEW.budget_key_id IS NOT NULL
   BEGIN
     UPDATE key_spend SET spent_units = spent_units - (NEW.amount_units - NEW.charged_units)
     WHERE key_id = NEW.budget_key_id AND period_start = NEW.budget_period_start;
   END`,
  `CREATE TRIGGER holds_release_key_spend AFTER UPDATE OF status ON holds
     WHEN OLD.status = 'active' AND NEW.status = 'released' AND NEW.budget_key_id IS NOT NULL
   BEGIN
     UPDATE key_spend SET spent_units = spent_units - NEW.amount_units
     WHERE key_id = NEW.budget_key_id AND period_start = NEW.budget_period_start;
   END`,
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (table) => {
    table.bigInteger('expires_at').nullable();
    table.text('models').nullable();
    table.text('allowed_ips').nullable();
    table.bigInteger('budget_units').nullable();
    table.string('budget_period', 8).nullable();
    table.integer('revision').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('key_spend', (table) => {
    table.string('key_id', 40).notNullable();
    table.bigInteger('period_start').notNullable();
    table.bigInteger('spent_units').notNullable().defaultTo(0);
    table.primary(['key_id', 'period_start']);
    table.check('?? >= 0', ['spent_units'], 'key_spend_not_negative');
  });
  await knex.schema.alterTable('holds', (table) => {
    table.string('budget_key_id', 40).nullable();
    table.bigInteger('budget_period_start').nullable();
  });
  if (!isPostgres(knex)) for (const trigger of sqliteTriggers) await knex.raw(trigger);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) for (const name of ['holds_settle_key_spend', 'holds_release_key_spend']) await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds a SQLite table, which would drop the hold triggers.
  for (const column of ['budget_period_start', 'budget_key_id']) await knex.raw(`ALTER TABLE holds DROP COLUMN ${column}`);
  await knex.schema.dropTableIfExists('key_spend');
  for (const column of ['revision', 'budget_period', 'budget_units', 'allowed_ips', 'models', 'expires_at']) await knex.raw(`ALTER TABLE api_keys DROP COLUMN ${column}`);
}
