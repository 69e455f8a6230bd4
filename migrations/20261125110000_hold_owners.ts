// Holds carry the serving process that placed them, and every serving process keeps a row
// here with a heartbeat, so a process that starts (or any live peer) can release the holds of
// requests that died with a process killed without cleanup, within seconds instead of after
// holds.ttl (src/billing/hold-owners.ts). Job holds carry no instance: they belong to their job.
//
// SQLite: ADD COLUMN keeps the table (and the hold triggers of 20261124010000) as they are;
// no index on holds.instance_id, so the hot INSERT maintains no extra index — the sweep
// finds active holds through holds_status_expiry (status first), and active holds are few.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('instances', (table) => {
    table.string('id', 40).primary();
    table.string('hostname', 255).notNullable();
    table.integer('pid').notNullable();
    table.bigInteger('started_at').notNullable();
    table.bigInteger('heartbeat_at').notNullable();
  });
  await knex.schema.alterTable('holds', (table) => {
    table.string('instance_id', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds a SQLite table, which would drop the hold triggers.
  await knex.raw('ALTER TABLE holds DROP COLUMN instance_id');
  await knex.schema.dropTableIfExists('instances');
}
