// The web cabinet (issue 17): one-time login links, cabinet sessions, admin tokens, and the
// account's cabinet key.
//
// - login_links: printed by `gateway cabinet link`; the token (gwl_…) is stored as its sha256
//   only, used once (used_at), refused after expires_at. kind: account | admin.
// - cabinet_sessions: what a redeemed link becomes; the cookie's token (gws_…) is stored as its
//   sha256 only. Ends at expires_at (absolute), after an idle gap (last_seen_at + the idle
//   limit) or when revoked. csrf_token: the value non-GET requests echo in x-csrf-token.
// - admin_tokens: bearer tokens (gwa_…) for the admin API, stored as sha256, shown once.
// - api_keys.purpose: 'api' for keys made by `keys create`, 'cabinet' for the one key per
//   account the cabinet acts through (src/cabinet/cabinet-key.ts). At most one live cabinet
//   key per account (a partial unique index): two first requests at once cannot make two.
//
// SQLite: ADD COLUMN keeps api_keys as it is.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_links', (table) => {
    table.string('id', 40).primary();
    table.string('token_hash', 64).notNullable().unique('login_links_token_hash');
    table.string('kind', 8).notNullable(); // account | admin
    table.string('account_id', 40).nullable().references('id').inTable('accounts');
    table.string('created_by', 200).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').notNullable();
    table.bigInteger('used_at').nullable();
  });
  await knex.schema.createTable('cabinet_sessions', (table) => {
    table.string('id', 40).primary();
    table.string('token_hash', 64).notNullable().unique('cabinet_sessions_token_hash');
    table.string('kind', 8).notNullable(); // account | admin
    table.string('account_id', 40).nullable().references('id').inTable('accounts');
    table.string('csrf_token', 64).notNullable();
    table.string('login_link_id', 40).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('last_seen_at').notNullable();
    table.bigInteger('expires_at').notNullable();
    table.bigInteger('revoked_at').nullable();
    table.string('user_agent', 300).nullable();
    table.string('address', 64).nullable();
    table.index(['account_id'], 'cabinet_sessions_account');
  });
  await knex.schema.createTable('admin_tokens', (table) => {
    table.string('id', 40).primary();
    table.string('name', 200).notNullable();
    table.string('prefix', 8).notNullable();
    table.string('hash', 64).notNullable().unique('admin_tokens_hash');
    table.string('last4', 4).notNullable();
    table.string('created_by', 200).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('last_used_at').nullable();
    table.bigInteger('revoked_at').nullable();
  });
  await knex.schema.alterTable('api_keys', (table) => {
    table.string('purpose', 16).notNullable().defaultTo('api');
  });
  await knex.raw(`CREATE UNIQUE INDEX api_keys_live_cabinet_key ON api_keys (account_id) WHERE purpose = 'cabinet' AND revoked_at IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS api_keys_live_cabinet_key');
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn rebuilds a SQLite table.
  await knex.raw('ALTER TABLE api_keys DROP COLUMN purpose');
  await knex.schema.dropTableIfExists('admin_tokens');
  await knex.schema.dropTableIfExists('cabinet_sessions');
  await knex.schema.dropTableIfExists('login_links');
}
