// Per-key limits beyond rpm (issue 30 item 11): tokens per minute (input + output, counted at
// settle) and requests in flight at once. Both null: no such limit (the default, and what every
// existing key keeps). They are read with the key itself (the lookup selects k.*), so a request
// pays no extra query for them; the counters live in Redis or the process (src/auth/key-limits.ts).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (table) => {
    table.integer('tpm').nullable();
    table.integer('max_in_flight').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // Plain DROP COLUMN (SQLite 3.35+), as 20261125230000 does: knex's dropColumn would rebuild the table.
  for (const column of ['max_in_flight', 'tpm']) await knex.raw(`ALTER TABLE api_keys DROP COLUMN ${column}`);
}
