// Runs storage tests on every database backend: SQLite always, PostgreSQL when
// GATEWAY_TEST_PG_URL is set (scripts/run-tests.mjs sets it when a server answers on
// 127.0.0.1:5432; .ci/run requires it). Each test gets a fresh, migrated database, and the
// run is counted per backend so the suite can print how many ran where.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import knexFactory, { type Knex } from 'knex';
import { connectDatabase } from '../../src/db/connect.js';
import type { Config } from '../../src/config/load.js';

export type Backend = 'sqlite' | 'postgres';

export const pgUrl = process.env.GATEWAY_TEST_PG_URL;
export const redisUrl = process.env.GATEWAY_TEST_REDIS_URL;

export const backends: Backend[] = pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];

export function countRun(backend: string): void {
  const dir = process.env.GATEWAY_TEST_REPORT_DIR;
  if (dir) appendFileSync(path.join(dir, `${process.pid}.txt`), `${backend}\n`);
}

export interface TestDatabase {
  readonly backend: Backend;
  readonly url: string;
  readonly database: Config['database'];
  readonly db: Knex;
  drop(): Promise<void>;
}

/**
 * PostgreSQL allows 100 connections by default: a test (its own pool plus a gateway's) uses
 * up to ~6, so each test process runs at most this many PostgreSQL tests at a time.
 */
const concurrentPgTests = 3;
let runningPgTests = 0;
const waitingPgTests: (() => void)[] = [];

async function acquirePgSlot(): Promise<() => void> {
  if (runningPgTests >= concurrentPgTests) await new Promise<void>((resolve) => waitingPgTests.push(resolve));
  else runningPgTests++;
  return () => {
    const next = waitingPgTests.shift();
    if (next) next();
    else runningPgTests--;
  };
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
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(pgUrl!);
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

/** Registers `title [sqlite]` and `title [postgres]`, each with its own fresh database. */
export function testOnBackends(
  title: string,
  body: (t: ExecutionContext, database: TestDatabase) => Promise<void>,
  options: { poolMax?: number } = {},
): void {
  for (const backend of backends) {
    test(`${title} [${backend}]`, async (t) => {
      if (backend === 'postgres') t.teardown(await acquirePgSlot());
      const database = await createTestDatabase(backend, options);
      t.teardown(() => database.drop());
      await body(t, database);
      countRun(backend);
    });
  }
}

/** balance == sum(ledger), held == sum(active holds), available >= 0, for every account. */
export async function assertLedgerInvariants(t: ExecutionContext, db: Knex): Promise<void> {
  const accounts: { id: string; balance_units: string | number; held_units: string | number }[] = await db('accounts').select('id', 'balance_units', 'held_units');
  for (const account of accounts) {
    const sum = await db('ledger_transactions').where({ account_id: account.id }).sum({ total: 'amount_units' }).first();
    const held = await db('holds').where({ account_id: account.id, status: 'active' }).sum({ total: 'amount_units' }).first();
    const balance = BigInt(account.balance_units);
    t.is(balance, BigInt(sum?.total ?? 0), `balance of ${account.id} equals the sum of its ledger`);
    t.is(BigInt(account.held_units), BigInt(held?.total ?? 0), `held of ${account.id} equals its active holds`);
    t.true(balance >= 0n, 'balance is never negative');
    t.true(balance >= BigInt(account.held_units), 'held never exceeds balance');
    const last = await db('ledger_transactions').where({ account_id: account.id }).orderBy('id', 'desc').first();
    if (last) t.is(BigInt(last.balance_after_units), balance, 'the newest balance_after is the balance');
  }
}
