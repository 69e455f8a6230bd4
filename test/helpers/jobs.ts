// Helpers of the async job tests: a gateway whose runner ticks fast, polling a job to its end,
// and the money checks every job test ends with.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExecutionContext } from 'ava';
import { assertLedgerInvariants, type TestDatabase } from './backends.js';
import { startGateway, type TestGateway } from './gateway.js';
import { fastJobsConfig } from './job-config.js';

export { fastJobsConfig } from './job-config.js';

export async function startJobGateway(t: ExecutionContext, database: TestDatabase, patch: Record<string, unknown> = {}): Promise<TestGateway> {
  return startGateway(t, database, { raw: fastJobsConfig(patch), jobRunner: true });
}

export async function api(gateway: { url: string }, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** GETs `path` until the job's status is terminal (completed/failed) or `timeoutMs` passes. */
export async function pollJob(gateway: { url: string }, key: string, path: string, timeoutMs = 30_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api(gateway, key, 'GET', path);
    if (body.status === 'completed' || body.status === 'failed' || Date.now() > until) return body;
    await sleep(50);
  }
}

/** No active hold left for the account, and balance == sum(ledger) everywhere. */
export async function assertJobMoneySettled(t: ExecutionContext, database: TestDatabase, accountId: string): Promise<void> {
  const active = await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first();
  t.is(Number(active?.n), 0, 'no hold is left active');
  await assertLedgerInvariants(t, database.db);
}

export async function charges(database: TestDatabase, accountId: string): Promise<bigint[]> {
  const rows = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).orderBy('id');
  return rows.map((row: any) => -BigInt(row.amount_units));
}
