// Runs storage tests on every database backend: SQLite always, PostgreSQL when
// GATEWAY_TEST_PG_URL is set (scripts/run-tests.mjs sets it when a server answers on
// 127.0.0.1:5432; .ci/run requires it). Each test gets a fresh, migrated database, and the
// run is counted per backend so the suite can print how many ran where. A variant whose
// backend is missing is registered as a skipped test whose title says why, so a run without
// PostgreSQL or Redis lists what it did not run (and run-tests.mjs fails it under
// GATEWAY_TEST_REQUIRE_BACKENDS=1 when a backend ran no test).
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext, type ImplementationFn } from 'ava';
import type { Knex } from 'knex';
import { type Backend, createTestDatabase, pgUrl, redisUrl, type TestDatabase } from './test-database.js';

export { type Backend, createTestDatabase, pgUrl, redisUrl, type TestDatabase } from './test-database.js';

export const backends: Backend[] = pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** The servers a test may need beyond SQLite, and the variable that points the tests at each. */
export type Server = 'postgres' | 'redis';
const serverUrls: Record<Server, { url: string | undefined; variable: string }> = {
  postgres: { url: pgUrl, variable: 'GATEWAY_TEST_PG_URL' },
  redis: { url: redisUrl, variable: 'GATEWAY_TEST_REDIS_URL' },
};

/** Why a test needing these servers cannot run here, or undefined when it can. */
export function missingServers(needs: readonly Server[]): string | undefined {
  const unset = needs.filter((server) => !serverUrls[server].url).map((server) => serverUrls[server].variable);
  return unset.length === 0 ? undefined : `SKIPPED: ${unset.join(' and ')} ${unset.length === 1 ? 'is' : 'are'} not set`;
}

type Register = (title: string, body: ImplementationFn<[]>) => void;

/**
 * `test` (or `.serial`) for a test that needs PostgreSQL and/or Redis: without them it is
 * registered as skipped, its title saying which variable is unset, so the skip is visible.
 */
export function needing(...needs: Server[]): Register & { serial: Register } {
  const reason = missingServers(needs);
  const register = (serial: boolean): Register => (title, body) => {
    if (reason === undefined) (serial ? test.serial : test)(title, body);
    else (serial ? test.serial.skip : test.skip)(`${title} (${reason})`, body);
  };
  return Object.assign(register(false), { serial: register(true) });
}

export function countRun(backend: string): void {
  const dir = process.env.GATEWAY_TEST_REPORT_DIR;
  if (dir) appendFileSync(path.join(dir, `${process.pid}.txt`), `${backend}\n`);
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

/** Registers `title [sqlite]` and `title [postgres]` (skipped without a URL), each with its own fresh database. */
export function testOnBackends(
  title: string,
  body: (t: ExecutionContext, database: TestDatabase) => Promise<void>,
  /** `sqliteNeeds`: servers the SQLite variant needs too (Redis for two serves on one SQLite file); without them it is listed as skipped. */
  options: { poolMax?: number; sqliteNeeds?: readonly Server[] } = {},
): void {
  if (!pgUrl) test.skip(`${title} [postgres] (${missingServers(['postgres'])})`, () => {});
  const sqliteMissing = missingServers(options.sqliteNeeds ?? []);
  for (const backend of backends) {
    if (backend === 'sqlite' && sqliteMissing !== undefined) {
      test.skip(`${title} [sqlite] (${sqliteMissing})`, () => {});
      continue;
    }
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
