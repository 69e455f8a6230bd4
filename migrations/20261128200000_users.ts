// Self-service accounts (issue 31): people who log in, apart from the accounts that hold money.
//
// - users: one person. email is lowercased and unique (NULL for someone who came by OIDC or
//   Telegram without one); password_hash is scrypt's (src/users/password.ts), NULL without a
//   password; email_verified_at is set when a link sent to that address was followed.
// - user_identities: the outside logins of a user: (provider, subject) is unique, so an OIDC
//   subject or a Telegram id finds one user. provider: `oidc:<name>` or `telegram`.
// - account_members: who may act for an account, as `owner` (everything) or `member`
//   (everything but moving money, managing members and changing the account's details).
// - email_tokens: single-use links sent by email (verify an address, reset a password, change
//   an email, join an account), stored as their sha256 only, refused after expires_at; the
//   UPDATE that marks one used is the check that it was unused.
// - invites: sign-up codes for `cabinet.signup: invite`, stored as their sha256, used once.
// - cabinet_sessions.user_id: the user a session belongs to (NULL for a session opened by an
//   operator's login link, which acts as the account's owner); method: how it was opened
//   (link, password, oidc, telegram). login_link_id becomes nullable: only link logins have one.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    table.string('id', 40).primary();
    table.string('email', 320).nullable().unique('users_email');
    table.bigInteger('email_verified_at').nullable();
    table.string('password_hash', 200).nullable();
    table.bigInteger('password_changed_at').nullable();
    table.string('name', 200).nullable();
    table.string('locale', 8).notNullable().defaultTo('en');
    table.bigInteger('created_at').notNullable();
    table.bigInteger('last_login_at').nullable();
    table.bigInteger('disabled_at').nullable();
  });
  await knex.schema.createTable('user_identities', (table) => {
    table.string('id', 40).primary();
    table.string('user_id', 40).notNullable().references('id').inTable('users');
    table.string('provider', 80).notNullable();
    table.string('subject', 255).notNullable();
    table.string('email', 320).nullable();
    table.bigInteger('created_at').notNullable();
    table.unique(['provider', 'subject'], { indexName: 'user_identities_subject' });
    table.index(['user_id'], 'user_identities_user');
  });
  await knex.schema.createTable('account_members', (table) => {
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('user_id', 40).notNullable().references('id').inTable('users');
    table.string('role', 8).notNullable(); // owner | member
    table.string('created_by', 200).notNullable();
    table.bigInteger('created_at').notNullable();
    table.primary(['account_id', 'user_id']);
    table.index(['user_id'], 'account_members_user');
  });
  await knex.schema.createTable('email_tokens', (table) => {
    table.string('id', 40).primary();
    table.string('token_hash', 64).notNullable().unique('email_tokens_token_hash');
    table.string('purpose', 16).notNullable(); // verify_email | reset_password | change_email | join_account
    table.string('user_id', 40).nullable().references('id').inTable('users');
    table.string('account_id', 40).nullable().references('id').inTable('accounts');
    table.string('email', 320).notNullable();
    table.string('role', 8).nullable(); // join_account: the role offered
    table.string('created_by', 200).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').notNullable();
    table.bigInteger('used_at').nullable();
    table.index(['user_id'], 'email_tokens_user');
  });
  await knex.schema.createTable('invites', (table) => {
    table.string('id', 40).primary();
    table.string('code_hash', 64).notNullable().unique('invites_code_hash');
    table.string('last4', 4).notNullable();
    table.string('created_by', 200).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').nullable();
    table.bigInteger('used_at').nullable();
    table.string('used_by', 40).nullable();
    table.bigInteger('revoked_at').nullable();
  });
  await knex.schema.alterTable('cabinet_sessions', (table) => {
    table.string('user_id', 40).nullable();
    table.string('method', 16).notNullable().defaultTo('link');
    table.index(['user_id'], 'cabinet_sessions_user');
  });
  if (knex.client.config.client === 'pg') {
    await knex.raw('ALTER TABLE cabinet_sessions ALTER COLUMN login_link_id DROP NOT NULL');
  } else {
    // SQLite cannot drop NOT NULL in place: knex rebuilds the table (nothing references it).
    await knex.schema.alterTable('cabinet_sessions', (table) => {
      table.string('login_link_id', 40).nullable().alter();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS cabinet_sessions_user');
  await knex.raw('ALTER TABLE cabinet_sessions DROP COLUMN method');
  await knex.raw('ALTER TABLE cabinet_sessions DROP COLUMN user_id');
  await knex.schema.dropTableIfExists('invites');
  await knex.schema.dropTableIfExists('email_tokens');
  await knex.schema.dropTableIfExists('account_members');
  await knex.schema.dropTableIfExists('user_identities');
  await knex.schema.dropTableIfExists('users');
}
