// Operator controls (issue 18): an audit trail of what operators did, and accounts that can be
// disabled. Every operator change (a balance adjustment, a refund, disabling an account) writes
// its audit row in the same transaction as the change itself: both land or neither.
//
// - audit_log.actor: who did it — `cli:<os user>@<host>` for the CLI; the web cabinet will add
//   `admin-token:<id>` and `cabinet:<session>`. target: what it was done to (an account, key or
//   request id); account_id: the account concerned (for `audit ls --account`); details: JSON.
// - accounts.disabled_at: set while the account is disabled (every key refused with 403
//   account_disabled). It comes with the key lookup (a join), so it costs no query per request.
//
// SQLite: ADD COLUMN keeps the accounts table (its CHECKs and the hold triggers) as it is.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (table) => {
    table.bigIncrements('id').primary();
    table.bigInteger('at').notNullable();
    table.string('actor', 200).notNullable();
    table.string('action', 64).notNullable(); // balance.adjust | balance.refund | account.disable | account.enable
    table.string('target', 200).notNullable();
    table.string('account_id', 40).nullable();
    table.text('details').notNullable(); // JSON object
    table.index(['account_id', 'id'], 'audit_log_account_id');
    table.index(['action', 'id'], 'audit_log_action_id');
  });
  await knex.schema.alterTable('accounts', (table) => {
    table.bigInteger('disabled_at').nullable();
    table.string('disabled_reason', 500).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds a SQLite table, which would drop the hold triggers.
  await knex.raw('ALTER TABLE accounts DROP COLUMN disabled_reason');
  await knex.raw('ALTER TABLE accounts DROP COLUMN disabled_at');
  await knex.schema.dropTableIfExists('audit_log');
}
