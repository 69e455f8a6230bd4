// The admin API's request log viewer (issue 17) shows why a request failed: the error it was
// answered with (catalog code and message, as the client saw it: an upstream's message is
// redacted before it reaches either) and, when an upstream failed, the upstream's status
// (`502`, `timeout`, `connect_error`, …; src/observability/upstream.ts) and the provider
// tried. All nullable: rows written before, and successes, have none. The key's own index
// serves GET /admin/v1/request-log?key=… pages (newest first), as request_log_account_id
// serves ?account=.
// The batched inserter stays idempotent: it names its columns (requestLogColumns) and skips
// rows whose request_id is already there, whatever the columns are.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_log', (table) => {
    table.string('provider', 100).nullable();
    table.string('error_code', 64).nullable();
    table.string('error_message', 500).nullable();
    table.string('upstream_status', 32).nullable();
    table.index(['key_id', 'id'], 'request_log_key_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_log', (table) => {
    table.dropIndex(['key_id', 'id'], 'request_log_key_id');
    table.dropColumn('upstream_status');
    table.dropColumn('error_message');
    table.dropColumn('error_code');
    table.dropColumn('provider');
  });
}
