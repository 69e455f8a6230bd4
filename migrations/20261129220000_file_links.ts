// file_links: download links that open one stored file without a session (docs/bot.md, "Images,
// video and music": a result too large for Telegram is sent as one). The link carries a random
// token (gwf_…); only its sha256 is stored, as for every secret. A link opens its file until
// expires_at, and only while the file is its account's (a file removed or expired is a 404).
// No foreign key on file_id: a link must not keep a file from being removed.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_links', (table) => {
    table.string('id', 40).primary();
    table.string('token_hash', 64).notNullable().unique('file_links_token_hash');
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.bigInteger('file_id').notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_links');
}
