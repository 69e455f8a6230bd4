// The one test of which SQL dialect a knex handle speaks. Code that writes dialect-specific SQL
// (SKIP LOCKED, RETURNING shapes, SQLite-only triggers) asks here, so there is a single seam
// to find when a third backend arrives. A transaction answers like the handle it came from.
import type { Knex } from 'knex';

/** Does this knex handle (or transaction) talk to PostgreSQL? Otherwise it is SQLite. */
export function isPostgres(db: Knex | Knex.Transaction): boolean {
  return db.client.config.client === 'pg';
}
