// Each serving or worker process records, with its heartbeat, where it keeps file bytes
// (`local:<hostname>:<dir>`, `local-shared:<dir>` or `s3:<endpoint>/<bucket>/<prefix>`), so
// that an instance starting on PostgreSQL can refuse to run beside a live instance on another
// machine when one of them keeps files on a disk the other cannot read
// (src/process/shared-storage.ts). NULL: a process of a version that did not record it.
// SQLite: a plain ADD COLUMN (the table has no triggers).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (table) => {
    table.string('blob_store', 1024).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE instances DROP COLUMN blob_store');
}
