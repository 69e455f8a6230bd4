// One row per generating request: who, which model over which upstream route, tokens by
// kind, the exact cost, whether usage was estimated, and timings. Written in batches off the
// request path.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_records', (table) => {
    table.bigIncrements('id').primary();
    table.string('request_id', 64).notNullable();
    table.string('account_id', 40).notNullable();
    table.string('key_id', 40).notNullable();
    table.string('endpoint', 40).notNullable(); // chat-completions | messages | responses
    table.string('model', 200).notNullable();
    table.string('provider', 100).notNullable();
    table.string('upstream_model', 200).notNullable();
    table.string('status', 16).notNullable(); // completed | aborted | failed
    table.integer('input_tokens').notNullable();
    table.integer('cached_input_tokens').notNullable();
    table.integer('cache_write_input_tokens').notNullable();
    table.integer('output_tokens').notNullable();
    table.integer('reasoning_tokens').notNullable();
    table.bigInteger('cost_units').notNullable();
    table.boolean('estimated').notNullable();
    table.integer('latency_ms').notNullable();
    table.integer('ttft_ms').nullable();
    table.string('finish_reason', 32).nullable();
    table.bigInteger('created_at').notNullable();
    table.index(['account_id', 'id'], 'usage_records_account_id');
    table.index(['request_id'], 'usage_records_request_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('usage_records');
}
