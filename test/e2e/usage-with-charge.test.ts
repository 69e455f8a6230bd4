// A charge and its usage record land in one commit: a serve process killed (SIGKILL) the moment
// its answers went out leaves no charge without its usage record. Before, the record waited in
// the batched inserter's memory for up to its flush interval after the settle had committed,
// and the chaos suite found charges without records after a kill.
//
// On SQLite the record lands in usage_outbox (migration 20261127190000) in the charge's commit and
// is moved to usage_records by the next process that starts, or by a report before it reads.
import { drainUsageOutbox } from '../../src/billing/usage-outbox.js';
import { isPostgres } from '../../src/db/dialect.js';
import { runCliJson } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';
import type { ExecutionContext } from 'ava';

const dialects = [
  { path: '/v1/chat/completions', body: (stream: boolean) => ({ model: 'sim/chat', stream, max_tokens: 50, messages: [{ role: 'user', content: 'usage with the charge' }] }) },
  { path: '/v1/messages', body: (stream: boolean) => ({ model: 'sim/chat', stream, max_tokens: 50, messages: [{ role: 'user', content: 'usage with the charge' }] }) },
  { path: '/v1/responses', body: (stream: boolean) => ({ model: 'sim/chat', stream, max_output_tokens: 50, input: 'usage with the charge' }) },
];

/** One request to a fresh `serve`, killed (SIGKILL) as soon as the whole answer is here: whatever is only in its memory is lost. */
async function answeredThenKilled(env: Record<string, string>, key: string, dialect: (typeof dialects)[number], stream: boolean) {
  const gateway = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  const response = await fetch(`${gateway.url}${dialect.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(dialect.body(stream)),
  });
  const body = await response.text();
  await gateway.kill();
  return { status: response.status, body, requestId: response.headers.get('x-request-id')! };
}

async function run(t: ExecutionContext, database: TestDatabase): Promise<void> {
  t.timeout(120_000);
  const simulator = await startSimulatorProcess(t);
  const env = processEnv(writeSharedConfig(simulator.url), database);
  const client = await createClient(database, 10_000_000n);
  for (const dialect of dialects) {
    for (const stream of [false, true]) {
      const { status, body, requestId } = await answeredThenKilled(env, client.key, dialect, stream);
      t.is(status, 200, body);
      const charge = await database.db('ledger_transactions').where({ request_id: requestId, kind: 'charge' }).first();
      t.truthy(charge, `${dialect.path} stream=${stream}: the charge landed before the answer ended`);
      if (!isPostgres(database.db)) {
        // Committed with the charge: in the outbox (a settle alone) or in usage_records already
        // (a settle grouped with other statements, or moved before the kill), once.
        const waiting = (await database.db('usage_outbox').select('usage_json')).filter((row: { usage_json: string }) => JSON.parse(row.usage_json).request_id === requestId);
        const landed = await database.db('usage_records').where({ request_id: requestId });
        t.is(waiting.length + landed.length, 1, 'SQLite: the record is in the outbox or in usage_records, once');
      }
      await drainUsageOutbox(database.db);
      const records = await database.db('usage_records').where({ request_id: requestId });
      t.is(records.length, 1, `${dialect.path} stream=${stream}: exactly one usage record`);
      t.is(BigInt(records[0].cost_units), -BigInt(charge.amount_units), 'the record costs what was charged');
      t.is(records[0].status, 'completed');
      t.is(records[0].account_id, client.accountId);
    }
  }
  await assertLedgerInvariants(t, database.db);
}

testOnBackends('a serve process killed right after its answers leaves every charge with its usage record (written in the same commit)', run);

testOnBackends('after a kill, `gateway usage` counts the last charge, and the next serve moves its usage record without a reader', async (t, database) => {
  t.timeout(120_000);
  const simulator = await startSimulatorProcess(t);
  const env = processEnv(writeSharedConfig(simulator.url), database);
  const client = await createClient(database, 10_000_000n);
  const dialect = dialects[0]!;
  const first = await answeredThenKilled(env, client.key, dialect, false);
  t.is(first.status, 200, first.body);
  const { requestId } = first;
  const charge = await database.db('ledger_transactions').where({ request_id: requestId, kind: 'charge' }).first();

  // The report (another process) reads every record: it moves the outbox first.
  const report = await runCliJson(['usage', '--by', 'account', '--since', '1970-01-01'], env);
  const recorded = await database.db('usage_records').where({ request_id: requestId }).first();
  t.is(BigInt(recorded.cost_units), -BigInt(charge.amount_units));
  const row = report.data.find((entry: { account: string }) => entry.account === client.accountId);
  // Without its record a charge reads as a media request with no tokens.
  t.like(row, { requests: 1, media_requests: 0, input_tokens: Number(recorded.input_tokens), output_tokens: Number(recorded.output_tokens) }, JSON.stringify(report));

  // A second charge, killed again; this time only a new serve process is started.
  const again = await answeredThenKilled(env, client.key, dialect, true);
  t.is(again.status, 200, again.body);
  const againId = again.requestId;
  const next = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  // Moved at the start (before its first request could be answered: registration, then the move).
  const record = await eventually(async () => database.db('usage_records').where({ request_id: againId }).first(), { what: 'the killed process\'s record moved by the next serve', intervalMs: 50 });
  t.is(record.status, 'completed');
  if (!isPostgres(database.db)) t.is(Number((await database.db('usage_outbox').count({ n: '*' }).first())!.n), 0, 'the outbox is empty');
  await next.kill();
  t.is(Number((await database.db('usage_records').where({ account_id: client.accountId }).count({ n: '*' }).first())!.n), 2, 'one record per charge, none twice');
  await assertLedgerInvariants(t, database.db);
});
