// Helpers of the async job tests: a gateway whose runner ticks fast, polling a job to its end,
// and the money checks every job test ends with.
import type { ExecutionContext } from 'ava';
import { assertLedgerInvariants, type TestDatabase } from './backends.js';
import { eventually } from './eventually.js';
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
  return readAnswer(response);
}

/** A response's status, headers and body: parsed when it is JSON, else its text (audio bytes, plain text) as it came. */
export async function readAnswer(response: Response): Promise<{ status: number; body: any; headers: Headers }> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** GETs `path` until the job's status is terminal (completed/failed); returns that answer. */
export async function pollJob(gateway: { url: string }, key: string, path: string): Promise<any> {
  return eventually(
    async () => {
      const { body } = await api(gateway, key, 'GET', path);
      return body.status === 'completed' || body.status === 'failed' ? body : undefined;
    },
    { what: `GET ${path} shows a finished job`, intervalMs: 50 },
  );
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
