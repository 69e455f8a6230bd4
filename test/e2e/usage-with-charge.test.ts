// A charge and its usage record land in one commit: a serve process killed (SIGKILL) the moment
// its answers went out leaves no charge without its usage record. Before, the record waited in
// the batched inserter's memory for up to its flush interval after the settle had committed,
// and the chaos suite found charges without records after a kill.
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';
import type { ExecutionContext } from 'ava';

const dialects = [
  { path: '/v1/chat/completions', body: (stream: boolean) => ({ model: 'sim/chat', stream, max_tokens: 50, messages: [{ role: 'user', content: 'usage with the charge' }] }) },
  { path: '/v1/messages', body: (stream: boolean) => ({ model: 'sim/chat', stream, max_tokens: 50, messages: [{ role: 'user', content: 'usage with the charge' }] }) },
  { path: '/v1/responses', body: (stream: boolean) => ({ model: 'sim/chat', stream, max_output_tokens: 50, input: 'usage with the charge' }) },
];

async function run(t: ExecutionContext, database: TestDatabase): Promise<void> {
  t.timeout(120_000);
  const simulator = await startSimulatorProcess(t);
  const env = processEnv(writeSharedConfig(simulator.url), database);
  const client = await createClient(database, 10_000_000n);
  for (const dialect of dialects) {
    for (const stream of [false, true]) {
      const gateway = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
      const response = await fetch(`${gateway.url}${dialect.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(dialect.body(stream)),
      });
      const body = await response.text();
      // Killed as soon as the whole answer is here: whatever is only in its memory is lost.
      await gateway.kill();
      t.is(response.status, 200, body);
      const requestId = response.headers.get('x-request-id')!;
      const charge = await database.db('ledger_transactions').where({ request_id: requestId, kind: 'charge' }).first();
      t.truthy(charge, `${dialect.path} stream=${stream}: the charge landed before the answer ended`);
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
