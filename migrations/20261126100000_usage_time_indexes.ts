// Indexes on the time of ledger rows and usage records. `gateway usage` and `gateway reconcile`
// read a period (created_at >= since AND created_at < until) of both tables; without these
// both databases scanned the whole table (EXPLAIN: SQLite `SCAN l`, PostgreSQL `Seq Scan on
// ledger_transactions`), a cost that grows with every request ever charged. The request path
// pays one more index entry per charge and per usage record.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_transactions', (table) => {
    table.index(['created_at'], 'ledger_created_at');
  });
  await knex.schema.alterTable('usage_records', (table) => {
    table.index(['created_at'], 'usage_records_created_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('usage_records', (table) => {
    table.dropIndex(['created_at'], 'usage_records_created_at');
  });
  await knex.schema.alterTable('ledger_transactions', (table) => {
    table.dropIndex(['created_at'], 'ledger_created_at');
  });
}
