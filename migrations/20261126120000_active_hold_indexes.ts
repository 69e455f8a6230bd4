// The two indexes of holds cover the active holds only (partial indexes, both databases).
//
// They led with status — (status, expires_at) for the expiry sweep, (account_id, status) — so
// every hold that closed moved its two entries from the 'active' part of each index to the
// 'settled' or 'released' part, which grows with every request ever made: four index pages
// changed per settle, on top of the row, the account and the ledger entry. On SQLite each of
// them is also copied into the statement journal of a grouped settle, and with them a settle
// whose index pages split outgrew the 64 KiB a journal may keep in memory (src/db/hot-statements.ts).
// Every query of these indexes asks for active holds (the expiry sweep, the sweep of dead
// processes' holds, the backlog gauge, `gateway backup`'s check), and active holds are the
// few in flight: a closed hold now only leaves two small indexes. Measured with the indexes
// dropped altogether, SQLite, 50 connections: 13–15% less CPU per chat request and half the
// bytes written (docs/performance.md).
// Both databases take a partial index for `status = ?` bound to 'active' too (SQLite prepares
// such a statement again for the bound value; EXPLAIN QUERY PLAN: SEARCH holds USING INDEX
// holds_active_expiry (expires_at<?)).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX holds_status_expiry');
  await knex.raw('DROP INDEX holds_account_status');
  await knex.raw("CREATE INDEX holds_active_expiry ON holds (expires_at) WHERE status = 'active'");
  await knex.raw("CREATE INDEX holds_active_account ON holds (account_id) WHERE status = 'active'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX holds_active_account');
  await knex.raw('DROP INDEX holds_active_expiry');
  await knex.raw('CREATE INDEX holds_account_status ON holds (account_id, status)');
  await knex.raw('CREATE INDEX holds_status_expiry ON holds (status, expires_at)');
}
