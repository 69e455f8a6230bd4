// Where a request-log row came from (issue 30): `api` for the API's own traffic (/v1/…), or
// `cabinet` for the calls the web cabinet's pages make (/cabinet/api/…, through the account's
// cabinet key), so that the operator's request log and `gateway requests ls --source` can
// show one without the other. Stored, not derived from the route, because it is decided where
// the request is known (src/http/middleware/request-context.ts) and stays right if a route
// moves. Rows written before: a cabinet row is one whose route is under /cabinet/api/ (no
// other logged path is), the rest are the API's.
// The index on created_at serves --since/--until (GET /admin/v1/request-log?since=…), which
// otherwise scans the table from its newest row down to the period; the batched insert pays
// one more index entry per row, off the request path.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_log', (table) => {
    table.string('source', 16).notNullable().defaultTo('api');
    table.index(['created_at'], 'request_log_created_at');
  });
  await knex('request_log').where('route', 'like', '/cabinet/api/%').update({ source: 'cabinet' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_log', (table) => {
    table.dropIndex(['created_at'], 'request_log_created_at');
    table.dropColumn('source');
  });
}
