// A fresh, migrated database of either backend, without ava: backends.ts (the ava side) and
// the chaos runner (scripts/chaos.ts, a plain Node.js program) both create databases here.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { connectDatabase } from '../../src/db/connect.js';
import type { Config } from '../../src/config/load.js';

export type Backend = 'sqlite' | 'postgres';

export const pgUrl = process.env.GATEWAY_TEST_PG_URL;
export const redisUrl = process.env.GATEWAY_TEST_REDIS_URL;

export interface TestDatabase {
  readonly backend: Backend;
  readonly url: string;
  readonly database: Config['database'];
  readonly db: Knex;
  drop(): Promise<void>;
}

/** A fresh, migrated database of the given backend. */
export async function createTestDatabase(backend: Backend, options: { poolMax?: number } = {}): Promise<TestDatabase> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-test-'));
    const filename = path.join(dir, 'gateway.db');
    const database: Config['database'] = { client: 'sqlite', url: `sqlite:${filename}`, filename, poolMax: 1 };
    const db = connectDatabase(database);
    await db.migrate.latest();
    return { backend, url: database.url, database, db, drop: () => db.destroy() };
  }
  if (!pgUrl) throw new Error('GATEWAY_TEST_PG_URL is not set');
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const database: Config['database'] = { client: 'postgres', url: url.toString(), poolMax: options.poolMax ?? 3 };
  const db = connectDatabase(database);
  await db.migrate.latest();
  return {
    backend,
    url: url.toString(),
    database,
    db,
    async drop() {
      await db.destroy();
      const cleanup = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
      await cleanup.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.destroy();
    },
  };
}
