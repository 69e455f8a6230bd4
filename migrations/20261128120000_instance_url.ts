// Each `serve` records the address it listens on, once listening, so that `gateway cabinet
// link` can print a link to where the cabinet really is when cabinet.public_url is not set
// (`serve --port 9000` made it print the configured port), and a second `serve` refused on one
// SQLite file can say where the first one answers (src/process/serve-lock.ts). NULL: a worker,
// a serve not yet listening, or a process of a version that did not record it.
// SQLite: a plain ADD COLUMN (the table has no triggers).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (table) => {
    table.string('url', 1024).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE instances DROP COLUMN url');
}
