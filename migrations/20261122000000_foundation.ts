// Foundation schema: accounts, API keys, the append-only ledger, holds and the request log.
// Identical on SQLite and PostgreSQL. Money columns are bigint units of 0.0001 RUB; times are
// bigint Unix milliseconds (exact and the same on both backends).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (table) => {
    table.string('id', 40).primary();
    table.string('name', 200).notNullable().unique();
    // balance = sum of this account's ledger transactions; held = sum of its active holds.
    table.bigInteger('balance_units').notNullable().defaultTo(0);
    table.bigInteger('held_units').notNullable().defaultTo(0);
    table.string('webhook_secret', 80).notNullable();
    table.bigInteger('created_at').notNullable();
    // The database itself refuses an overdraft, whatever the code above it does.
    table.check('?? >= 0', ['balance_units'], 'accounts_balance_not_negative');
    table.check('?? >= 0', ['held_units'], 'accounts_held_not_negative');
    table.check('?? <= ??', ['held_units', 'balance_units'], 'accounts_held_within_balance');
  });

  await knex.schema.createTable('api_keys', (table) => {
    table.string('id', 40).primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('name', 200).nullable();
    table.string('prefix', 16).notNullable();
    table.string('hash', 64).notNullable().unique(); // sha256 hex of the whole key: the lookup path
    table.string('last4', 4).notNullable();
    table.string('scopes', 200).notNullable();
    table.integer('rpm').nullable(); // per-key override of rate_limit.requests_per_minute
    table.bigInteger('created_at').notNullable();
    table.bigInteger('revoked_at').nullable();
    table.bigInteger('last_used_at').nullable();
    table.index(['account_id'], 'api_keys_account');
  });

  await knex.schema.createTable('holds', (table) => {
    table.string('id', 40).primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.bigInteger('amount_units').notNullable();
    table.string('status', 16).notNullable(); // active | settled | released
    table.string('model', 200).nullable();
    table.string('request_id', 64).nullable();
    table.string('description', 500).nullable();
    table.bigInteger('charged_units').nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').notNullable();
    table.bigInteger('closed_at').nullable();
    table.check('?? > 0', ['amount_units'], 'holds_amount_positive');
    table.index(['status', 'expires_at'], 'holds_status_expiry'); // the sweeper
    table.index(['account_id', 'status'], 'holds_account_status');
  });

  await knex.schema.createTable('ledger_transactions', (table) => {
    // Monotonic id: the history cursor. Per account, ids are assigned in commit order because
    // every ledger write locks the account row before inserting here.
    table.bigIncrements('id').primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('kind', 16).notNullable(); // charge | refund | topup | bonus | referral | adjustment
    table.bigInteger('amount_units').notNullable(); // negative for charges
    table.bigInteger('balance_after_units').notNullable();
    table.string('hold_id', 40).nullable().references('id').inTable('holds');
    table.string('model', 200).nullable();
    table.string('description', 500).nullable();
    table.string('request_id', 64).nullable();
    table.bigInteger('created_at').notNullable();
    table.check('?? >= 0', ['balance_after_units'], 'ledger_balance_after_not_negative');
    table.index(['account_id', 'id'], 'ledger_account_id'); // history pages, newest first
    table.unique(['hold_id', 'kind'], { indexName: 'ledger_one_charge_per_hold' });
  });

  await knex.schema.createTable('request_log', (table) => {
    table.bigIncrements('id').primary();
    table.string('request_id', 64).notNullable();
    table.string('account_id', 40).nullable();
    table.string('key_id', 40).nullable();
    table.string('method', 8).notNullable();
    table.string('route', 200).notNullable();
    table.string('model', 200).nullable();
    table.integer('status').notNullable();
    table.integer('duration_us').notNullable();
    table.bigInteger('charged_units').notNullable().defaultTo(0);
    table.bigInteger('created_at').notNullable();
    table.index(['account_id', 'id'], 'request_log_account_id');
    table.index(['request_id'], 'request_log_request_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('request_log');
  await knex.schema.dropTableIfExists('ledger_transactions');
  await knex.schema.dropTableIfExists('holds');
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('accounts');
}
