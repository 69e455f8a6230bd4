// Async jobs (video, video upscale, music), their webhook deliveries, and files and
// generations with the integer ids the public API shows. The files and generations tables
// of the synchronous media issue had string ids; they are rebuilt here with their rows kept
// (oldest first, so the integer ids follow creation order).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Read the old rows, drop the old tables (their index names are reused), create the new ones.
  const oldFiles: Record<string, unknown>[] = await knex('files').orderBy('created_at').orderBy('id');
  const oldGenerations: Record<string, unknown>[] = await knex('generations').orderBy('created_at').orderBy('id');
  await knex.schema.dropTable('generations');
  await knex.schema.dropTable('files');

  await knex.schema.createTable('files', (table) => {
    table.bigIncrements('id').primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('purpose', 32).notNullable(); // image | audio | video | music | upload
    table.string('media_type', 100).notNullable();
    table.string('filename', 255).nullable();
    table.bigInteger('bytes').notNullable();
    table.string('sha256', 64).notNullable();
    table.string('storage_key', 300).notNullable();
    table.boolean('permanent').notNullable().defaultTo(false);
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').nullable(); // null when permanent
    table.bigInteger('deleted_at').nullable(); // set when the bytes are gone (expired, gc)
    table.index(['account_id', 'id'], 'files_account_id');
    table.index(['expires_at'], 'files_expiry');
  });
  await knex.schema.createTable('generations', (table) => {
    table.bigIncrements('row_id').primary();
    table.string('type', 16).notNullable(); // image | video | music
    table.bigInteger('number').notNullable(); // the public id, counted per type
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('key_id', 40).notNullable();
    table.string('job_id', 40).nullable(); // the async job that produces it (video, music)
    table.string('model', 200).notNullable();
    table.text('prompt').nullable();
    table.string('status', 16).notNullable(); // queued | in_progress | completed | failed | cancelled
    table.bigInteger('charged_units').notNullable();
    table.text('file_ids').notNullable(); // JSON array of files.id, in track/image order
    table.string('request_id', 64).notNullable();
    table.bigInteger('created_at').notNullable();
    table.unique(['type', 'number'], { indexName: 'generations_type_number' });
    table.index(['account_id', 'type', 'number'], 'generations_account_type');
    table.index(['job_id'], 'generations_job');
  });

  // Carry the synchronous media issue's rows over.
  const fileIds = new Map<string, number>();
  for (const file of oldFiles) {
    const { id, ...rest } = file;
    const [row] = await knex('files').insert(rest).returning(['id']);
    fileIds.set(String(id), Number(row.id));
  }
  const counters = new Map<string, number>();
  for (const generation of oldGenerations) {
    const type = String(generation.type);
    const number = (counters.get(type) ?? 0) + 1;
    counters.set(type, number);
    const fileId = generation.file_id ? fileIds.get(String(generation.file_id)) : undefined;
    await knex('generations').insert({
      type,
      number,
      account_id: generation.account_id,
      key_id: generation.key_id,
      job_id: null,
      model: generation.model,
      prompt: generation.prompt,
      status: 'completed',
      charged_units: generation.charged_units,
      file_ids: JSON.stringify(fileId === undefined ? [] : [fileId]),
      request_id: generation.request_id,
      created_at: generation.created_at,
    });
  }

  await knex.schema.createTable('jobs', (table) => {
    table.string('id', 48).primary(); // video_… | music_…
    table.string('kind', 16).notNullable(); // video | video_upscale | music
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('key_id', 40).notNullable();
    table.string('model', 200).notNullable();
    table.string('status', 16).notNullable(); // queued | in_progress | completed | failed | cancelled
    table.integer('progress').notNullable().defaultTo(0);
    table.text('request').notNullable(); // JSON: the validated request the upstream gets
    table.string('request_hash', 64).notNullable(); // sha256 of the canonical request (idempotency)
    table.string('idempotency_key', 128).nullable();
    table.string('endpoint', 40).notNullable(); // idempotency scope: videos | videos/upscale | audio/music
    table.string('hold_id', 40).nullable();
    table.bigInteger('hold_units').notNullable().defaultTo(0);
    table.bigInteger('charged_units').notNullable().defaultTo(0);
    table.string('provider', 100).nullable(); // the route the job was sent to
    table.string('upstream_model', 200).nullable();
    table.string('upstream_id', 200).nullable();
    table.string('upstream_status', 64).nullable(); // the vendor's raw status, as last seen
    table.integer('polls').notNullable().defaultTo(0);
    table.string('lease_owner', 64).nullable();
    table.bigInteger('lease_until').nullable();
    table.bigInteger('next_run_at').notNullable();
    table.bigInteger('deadline_at').notNullable();
    table.string('error_code', 64).nullable();
    table.text('error_message').nullable();
    table.text('result').nullable(); // JSON: {file_ids, seconds, size, tracks…}
    table.string('webhook_url', 2048).nullable();
    table.string('request_id', 64).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('started_at').nullable();
    table.bigInteger('completed_at').nullable();
    table.bigInteger('updated_at').notNullable();
    table.unique(['account_id', 'endpoint', 'idempotency_key'], { indexName: 'jobs_idempotency' });
    table.index(['status', 'next_run_at'], 'jobs_runnable');
    table.index(['account_id', 'created_at'], 'jobs_account');
  });

  await knex.schema.createTable('webhook_deliveries', (table) => {
    table.string('id', 48).primary(); // msg_… : the webhook-id header, the same on every retry
    table.string('job_id', 48).notNullable();
    table.string('account_id', 40).notNullable();
    table.string('url', 2048).notNullable();
    table.text('payload').notNullable(); // the exact JSON body signed and sent
    table.string('status', 16).notNullable(); // pending | delivered | failed
    table.integer('attempts').notNullable().defaultTo(0);
    table.bigInteger('next_attempt_at').notNullable();
    table.string('lease_owner', 64).nullable();
    table.bigInteger('lease_until').nullable();
    table.integer('last_status').nullable();
    table.text('last_error').nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('delivered_at').nullable();
    table.unique(['job_id'], { indexName: 'webhook_deliveries_job' }); // one delivery per job (it has one terminal state)
    table.index(['status', 'next_attempt_at'], 'webhook_deliveries_due');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('jobs');
  // Files and generations keep their integer ids on the way down (no data loss).
}
