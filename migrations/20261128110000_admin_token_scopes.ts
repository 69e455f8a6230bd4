// Admin token scopes (issue 30 item 2): admin_tokens.scopes, a comma list of read, accounts,
// keys, money, admin (src/cabinet/admin-scopes.ts).
//
// Tokens made before this release keep the full power they had: each gets every scope here,
// so no operator's script breaks on upgrade. The column's default is the empty list — a row
// written without scopes opens nothing — and the code always writes them.
//
// SQLite: ADD COLUMN keeps the table as it is.
import type { Knex } from 'knex';

/** Every scope as of this migration, spelled out: the migration must not change if the list grows. */
const everyScopeAtUpgrade = 'read,accounts,keys,money,admin';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('admin_tokens', (table) => {
    table.text('scopes').notNullable().defaultTo('');
  });
  await knex('admin_tokens').update({ scopes: everyScopeAtUpgrade });
}

export async function down(knex: Knex): Promise<void> {
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds a SQLite table.
  await knex.raw('ALTER TABLE admin_tokens DROP COLUMN scopes');
}
