// jobs.deleted_at: when the owner deleted the job's result (DELETE /v1/videos/{id}). A deleted
// video is gone for its owner as it is on OpenAI — retrieve, content, list and a second delete
// answer as for an unknown id — while the row stays: the ledger's charge and the generation
// history still point at it, and the operator's `gateway jobs show` still finds it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (table) => {
    table.bigInteger('deleted_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE jobs DROP COLUMN deleted_at');
}
