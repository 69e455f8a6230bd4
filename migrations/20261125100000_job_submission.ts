// A job's submission is recorded before it is sent upstream, so that a runner that dies while
// sending (or a slow submit) never leads to a second, paid, upstream job (issue 13 item 4):
//   submit_state  null        — never sent;
//                 submitting  — written and committed before the upstream call, with the route
//                               (provider, upstream_model) and the key below: the outcome of
//                               that call is not known until the upstream id is stored;
//                 submitted   — the upstream id is stored.
//   submit_key    the idempotency key sent with the submit (derived from the job id): a runner
//                 that finds the job `submitting` re-sends with this same key, and the vendor
//                 answers the job it already made.
//   submits       how many submit requests went upstream for this job (re-sends included).
//
// SQLite: ADD COLUMN keeps the table as it is (no rebuild).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (table) => {
    table.string('submit_state', 16).nullable();
    table.string('submit_key', 128).nullable();
    table.integer('submits').notNullable().defaultTo(0);
  });
  // Jobs sent before this migration: their upstream id is stored, so they were submitted.
  await knex('jobs').whereNotNull('upstream_id').update({ submit_state: 'submitted', submits: 1 });
}

export async function down(knex: Knex): Promise<void> {
  // Plain DROP COLUMN (SQLite 3.35+): knex's dropColumn would rebuild the SQLite table.
  for (const column of ['submit_state', 'submit_key', 'submits']) await knex.raw(`ALTER TABLE jobs DROP COLUMN ${column}`);
}
