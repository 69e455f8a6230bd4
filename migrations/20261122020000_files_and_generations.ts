// Stored files (generated images, audio; later uploads and job outputs) and the generation
// history that points at them. Files are temporary (expire after storage.temp_ttl) unless
// kept; the bytes live in the blob store, the rows here.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files', (table) => {
    table.string('id', 40).primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('purpose', 32).notNullable(); // image | audio | video | music | upload
    table.string('media_type', 100).notNullable();
    table.bigInteger('bytes').notNullable();
    table.string('sha256', 64).notNullable();
    table.string('storage_key', 300).notNullable();
    table.boolean('permanent').notNullable().defaultTo(false);
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').nullable(); // null when permanent
    table.bigInteger('deleted_at').nullable();
    table.index(['account_id', 'id'], 'files_account_id');
    table.index(['expires_at'], 'files_expiry');
  });
  await knex.schema.createTable('generations', (table) => {
    table.string('id', 40).primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('key_id', 40).notNullable();
    table.string('type', 16).notNullable(); // image | video | music
    table.string('model', 200).notNullable();
    table.text('prompt').nullable();
    table.bigInteger('charged_units').notNullable();
    table.string('file_id', 40).nullable().references('id').inTable('files');
    table.string('request_id', 64).notNullable();
    table.bigInteger('created_at').notNullable();
    table.index(['account_id', 'type', 'created_at'], 'generations_account_type');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('generations');
  await knex.schema.dropTableIfExists('files');
}
