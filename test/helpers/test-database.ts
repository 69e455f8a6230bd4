// A fresh, migrated database of either backend, without ava: backends.ts (the ava side) and
// the chaos runner (scripts/chaos.ts, a plain Node.js program) both create databases here.
//
// Migrating a database takes 0.4-2 s (27 migrations; PostgreSQL's DDL is the slow part) and
// every storage test wants a fresh one, so each is a copy of a migrated template instead:
// PostgreSQL's CREATE DATABASE … TEMPLATE (~0.1 s), or a copied SQLite file (milliseconds).
// The template's name carries a digest of the migrations, so a changed migration makes a new
// template rather than copying a stale one; a PostgreSQL template is built once for every test
// process of a run (under an advisory lock) and appears under its name only when complete.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

const migrationsDirectory = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** A digest of every migration's name and text: the templates' identity. */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(migrationsDirectory).sort()) {
    hash.update(name).update('\0').update(readFileSync(path.join(migrationsDirectory, name))).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

let digest: string | undefined;
const templateDigest = (): string => (digest ??= migrationsDigest());

let sqliteTemplate: Promise<string> | undefined;

/** This process's migrated SQLite file, made on first use; copies of it are the tests' databases. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const filename = path.join(mkdtempSync(path.join(tmpdir(), 'gw-template-')), 'template.db');
    const db = connectDatabase({ client: 'sqlite', url: `sqlite:${filename}`, filename, poolMax: 1 });
    await db.migrate.latest();
    // Closing checkpoints the WAL into the file, so the file alone is the whole database.
    await db.destroy();
    return filename;
  })();
  return sqliteTemplate;
}

let postgresTemplate: Promise<string> | undefined;

/** The run's migrated PostgreSQL template database, built by whichever test process needs it first. */
function postgresTemplateName(): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `gw_template_${templateDigest()}`;
    const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 1, max: 1 } });
    try {
      const exists = async () => (await admin('pg_database').where({ datname: name }).first()) !== undefined;
      if (await exists()) return name;
      // One builder at a time across the run's processes; the others wait, then find it made.
      await admin.raw('SELECT pg_advisory_lock(?)', [0x67772d74]);
      try {
        if (await exists()) return name;
        const building = `${name}_building`;
        await admin.raw(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await admin.raw(`CREATE DATABASE ${building}`);
        const url = new URL(pgUrl!);
        url.pathname = `/${building}`;
        const db = connectDatabase({ client: 'postgres', url: url.toString(), poolMax: 1 });
        try {
          await db.migrate.latest();
        } finally {
          await db.destroy();
        }
        await admin.raw(`ALTER DATABASE ${building} RENAME TO ${name}`);
        return name;
      } finally {
        await admin.raw('SELECT pg_advisory_unlock(?)', [0x67772d74]);
      }
    } finally {
      await admin.destroy();
    }
  })();
  // A failed build is retried by the next caller rather than remembered.
  postgresTemplate.catch(() => (postgresTemplate = undefined));
  return postgresTemplate;
}

/** A fresh, migrated database of the given backend. */
export async function createTestDatabase(backend: Backend, options: { poolMax?: number } = {}): Promise<TestDatabase> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-test-'));
    const filename = path.join(dir, 'gateway.db');
    copyFileSync(await sqliteTemplateFile(), filename);
    const database: Config['database'] = { client: 'sqlite', url: `sqlite:${filename}`, filename, poolMax: 1 };
    const db = connectDatabase(database);
    return { backend, url: database.url, database, db, drop: () => db.destroy() };
  }
  if (!pgUrl) throw new Error('GATEWAY_TEST_PG_URL is not set');
  const template = await postgresTemplateName();
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
  // WAL_LOG copies a small database without the checkpoint FILE_COPY forces.
  await admin.raw(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY WAL_LOG`);
  await admin.destroy();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const database: Config['database'] = { client: 'postgres', url: url.toString(), poolMax: options.poolMax ?? 3 };
  const db = connectDatabase(database);
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
