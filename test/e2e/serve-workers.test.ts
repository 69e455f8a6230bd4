// `gateway serve --workers 2` without Redis (issue 37): what one process guarantees holds across
// its workers. The primary keeps the limits and caches (src/process/cluster-state.ts), restarts a
// worker that dies after releasing its holds, and replaces the workers one by one on reload. Each
// response names the worker that answered (x-gateway-worker), so a test sees that both served.
// The rate limiter's clock stands still here (GATEWAY_TEST_FROZEN_RATE_CLOCK): "61 calls within a
// second" then does not depend on how fast this machine answers them.
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { assertLedgerInvariants, backends, countRun, createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import test from 'ava';
import { runCli, runCliJson } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, writeSharedConfig, type RunningProcess } from '../helpers/processes.js';

interface Workers {
  readonly gateway: RunningProcess;
  readonly config: string;
  readonly env: Record<string, string>;
  readonly pids: readonly number[];
}

async function startWorkers(t: ExecutionContext, database: TestDatabase, patch: Record<string, unknown> = {}): Promise<Workers> {
  const simulator = await startSimulatorProcess(t);
  const config = writeSharedConfig(simulator.url, patch);
  const env = processEnv(config, database, { GATEWAY_TEST_FROZEN_RATE_CLOCK: '1' });
  const gateway = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--workers', '2'], env);
  t.teardown(() => gateway.stop());
  const pids = (gateway.announced as unknown as { workers: number[] }).workers;
  t.is(pids.length, 2);
  return { gateway, config, env, pids };
}

/** One request on a connection of its own (round-robin hands each new connection to the next worker). */
async function call(url: string, key: string, body?: unknown): Promise<{ status: number; worker: number; json: any; requestId: string }> {
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, connection: 'close', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, worker: Number(response.headers.get('x-gateway-worker')), json: await response.json(), requestId: response.headers.get('x-request-id')! };
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'sim/chat', max_tokens: 20, messages: [{ role: 'user', content }], ...extra });

// Serial: each test runs a simulator, a primary and two workers; side by side on 2 cores they starve each other.
for (const backend of backends) test.serial(`--workers 2: 61 calls from one key across both workers give exactly one 429 (rpm 60 counted once for the machine) [${backend}]`, async (t) => {
  t.timeout(180_000);
  const database = await createTestDatabase(backend);
  t.teardown(() => database.drop());
  const { gateway } = await startWorkers(t, database);
  const { accountId } = await createClient(database, 1_000_000n);
  const { key } = await new ApiKeys(database.db, 'gw').create({ accountId, rpm: 60 });
  const results = await Promise.all(Array.from({ length: 61 }, () => call(`${gateway.url}/v1/history`, key)));
  const statuses = results.map((result) => result.status);
  t.deepEqual([statuses.filter((status) => status === 200).length, statuses.filter((status) => status === 429).length], [60, 1]);
  t.is(new Set(results.map((result) => result.worker)).size, 2, 'both workers served');
  // And the next one, on either worker, is refused too.
  t.is((await call(`${gateway.url}/v1/history`, key)).status, 429);
  countRun(backend);
});

test.serial('--workers 2: a repeated prefix is billed as cached on the second request whichever worker serves it', async (t) => {
  t.timeout(180_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const { gateway } = await startWorkers(t, database);
  const { key } = await createClient(database, 100_000_000n);
  // A short prefix (the simulator caches nothing below 64 tokens): only the gateway's tracker can tell.
  const conversation = (topic: string, last: string) => ({
    model: 'sim/chat',
    max_tokens: 20,
    messages: [
      { role: 'system', content: `Be brief about ${topic}.` },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: last },
    ],
  });
  const pairs: { first: number; second: number }[] = [];
  let expected: number | undefined;
  for (let index = 0; index < 12 && !(pairs.some((p) => p.first !== p.second) && pairs.some((p) => p.first === p.second)); index++) {
    const topic = `topic ${'abcdefghijkl'[index]}`; // one length: every pair's prefix counts the same tokens
    const first = await call(`${gateway.url}/v1/chat/completions`, key, conversation(topic, 'one'));
    t.is(first.status, 200);
    t.is(first.json.usage.prompt_tokens_details?.cached_tokens ?? 0, 0);
    // Every other time a request in between moves the next connection to the same worker.
    if (index % 2 === 1) await call(`${gateway.url}/v1/history`, key);
    const second = await call(`${gateway.url}/v1/chat/completions`, key, conversation(topic, 'two'));
    t.is(second.status, 200);
    // The first pair's count (the gateway's estimate of system, "Hi" and "Hello"), and the same on every pair since.
    const cached = second.json.usage.prompt_tokens_details.cached_tokens as number;
    expected ??= cached;
    t.true(cached > 0 && cached < second.json.usage.prompt_tokens, 'the prefix is cached, the last message is not');
    t.is(cached, expected);
    const record = await eventually(() => database.db('usage_records').where({ request_id: second.requestId }).first(), { what: 'the usage record of the second request' });
    t.is(Number(record.cached_input_tokens), expected, 'billed as cached');
    pairs.push({ first: first.worker, second: second.worker });
  }
  t.true(pairs.some((pair) => pair.first !== pair.second), 'a prefix first seen by one worker was cached on the other');
  t.log(`pairs (first worker, second worker): ${pairs.map((pair) => `${pair.first}->${pair.second}`).join(', ')}`);
});

test.serial('--workers 2: a revoked key is refused on its next request by both workers', async (t) => {
  t.timeout(180_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const { gateway, env } = await startWorkers(t, database);
  const { accountId } = await createClient(database, 100_000_000n);
  const { apiKey, key } = await new ApiKeys(database.db, 'gw').create({ accountId, rpm: 100_000 });
  // Served by both: each worker now has the key in its cache of keys seen live.
  const served = new Set<number>();
  await eventually(async () => {
    const result = await call(`${gateway.url}/v1/chat/completions`, key, chat('hi'));
    t.is(result.status, 200);
    served.add(result.worker);
    return served.size === 2;
  }, { what: 'both workers served the key' });
  const balance = await database.db('accounts').where({ id: accountId }).first();
  await runCliJson(['keys', 'revoke', apiKey.id], env);
  const refusedBy = new Set<number>();
  for (let attempt = 0; attempt < 20 && refusedBy.size < 2; attempt++) {
    const result = await call(`${gateway.url}/v1/chat/completions`, key, chat('hi'));
    t.is(result.status, 401, `worker ${result.worker} refused the revoked key`);
    refusedBy.add(result.worker);
  }
  t.is(refusedBy.size, 2, 'both workers refused it');
  const after = await database.db('accounts').where({ id: accountId }).first();
  t.deepEqual([String(after.balance_units), String(after.held_units)], [String(balance.balance_units), '0'], 'nothing charged or held after the revoke');
});

test.serial('--workers 2: kill -9 of a worker mid-stream loses no money and leaves no hold; the primary starts another', async (t) => {
  t.timeout(180_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  // holds.ttl 1 h and owner_gone_after 1 h: only the primary's release on the worker's exit can free the holds in time.
  const { gateway, pids } = await startWorkers(t, database, { holds: { ttl: '1h', sweep_interval: '1h', heartbeat_interval: '1s', owner_gone_after: '1h' } });
  const { accountId, key } = await createClient(database, 100_000_000n);
  // Streams on both workers (a connection each), held while they run.
  const streams = await Promise.all(
    Array.from({ length: 6 }, async (_, index) => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ model: 'sim/chat', stream: true, max_tokens: 1000, messages: [{ role: 'user', content: `story ${index} [[sim:tokens=3000]] [[sim:delay=100]]` }] }),
      });
      t.is(response.status, 200);
      const reader = response.body!.getReader();
      await reader.read(); // the first chunk: its hold is placed
      const done = (async () => {
        try {
          while (!(await reader.read()).done);
        } catch {
          // its worker died under it, or the test hung up
        }
      })();
      return { worker: Number(response.headers.get('x-gateway-worker')), done, cancel: () => reader.cancel().catch(() => undefined) };
    }),
  );
  const victim = streams[0]!.worker;
  t.true(pids.includes(victim));
  const survivorStreams = streams.filter((stream) => stream.worker !== victim).length;
  t.true(survivorStreams > 0, 'the other worker streams too');
  const active = async () => Number((await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first())!.n);
  t.is(await active(), 6);
  process.kill(victim, 'SIGKILL');
  // The victim's holds are released at once by the primary; the survivor's streams keep theirs.
  await eventually(async () => (await active()) === survivorStreams, { what: "the dead worker's holds were released", intervalMs: 50 });
  const released = await database.db('holds').where({ account_id: accountId, status: 'released' });
  t.is(released.length, 6 - survivorStreams);
  // The primary started a replacement: a new pid answers.
  await eventually(async () => {
    const result = await call(`${gateway.url}/v1/history`, key);
    return result.status === 200 && !pids.includes(result.worker);
  }, { what: 'a new worker serves' });
  t.true(gateway.output().includes('a worker exited; starting another'));
  // The survivor's clients hang up: each is charged for what it delivered; then nothing is held and every unit is in the ledger.
  await Promise.all(streams.map((stream) => stream.cancel()));
  await Promise.all(streams.map((stream) => stream.done));
  await eventually(async () => (await active()) === 0, { what: 'no active hold is left' });
  await assertLedgerInvariants(t, database.db);
  const charges = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' });
  t.is(charges.length, survivorStreams, 'the dead requests were charged nothing, the live ones once each');
});

test.serial('--workers 2: a reload under steady load refuses no connection and fails no request; a bad configuration is refused and the old workers keep serving', async (t) => {
  t.timeout(300_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const { gateway, config, env, pids } = await startWorkers(t, database);
  const { key } = await createClient(database, 100_000_000n);
  // Steady load: 4 clients, each request on a new connection (every one must be accepted), until told to stop.
  let loading = true;
  const outcomes: string[] = [];
  const seenWorkers = new Set<number>();
  const load = Promise.all(
    Array.from({ length: 4 }, async (_, client) => {
      for (let index = 0; loading; index++) {
        try {
          const result = await call(`${gateway.url}/v1/chat/completions`, key, chat(`load ${client}.${index} [[sim:tokens=30]] [[sim:delay=20]]`));
          outcomes.push(String(result.status));
          seenWorkers.add(result.worker);
        } catch (error) {
          outcomes.push(`error: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`);
        }
      }
    }),
  );
  await eventually(() => outcomes.length >= 8, { what: 'the load is running' });
  const reloaded = await runCliJson<{ pid: number; seq: number; workers: number[] }>(['reload'], env);
  t.is(reloaded.seq, 1);
  t.is(reloaded.workers.length, 2);
  t.false(reloaded.workers.some((pid) => pids.includes(pid)), 'both workers were replaced');
  await eventually(() => reloaded.workers.every((pid) => seenWorkers.has(pid)), { what: 'the new workers serve' });
  // A configuration that does not load: `gateway reload` refuses it before signalling anything.
  const good = readFileSync(config, 'utf8');
  writeFileSync(config, 'server: [not, an, object]\n');
  const refused = await runCli(['reload', '--json'], env);
  t.not(refused.exitCode, 0);
  t.regex(refused.stderr, /invalid configuration/);
  // The primary checks it as well: a reload by SIGHUP (nothing checks it before) is refused, with the reason, and the workers serving keep serving.
  process.kill(Number(gateway.announced.pid), 'SIGHUP');
  const outcome = await eventually(async () => {
    const text = await readFile(path.join(env.GATEWAY_DATA_DIR!, 'serve-reload.json'), 'utf8').catch(() => '');
    const parsed = text ? (JSON.parse(text) as { seq: number; ok: boolean; error?: string; workers: number[] }) : undefined;
    return parsed && parsed.seq === 2 ? parsed : undefined;
  }, { what: 'the SIGHUP reload outcome' });
  t.false(outcome.ok);
  t.regex(outcome.error!, /invalid configuration/);
  t.deepEqual(outcome.workers, reloaded.workers, 'the old workers keep serving');
  writeFileSync(config, good);
  const served = outcomes.length;
  await eventually(() => outcomes.length >= served + 8, { what: 'the load is still served' });
  loading = false;
  await load;
  const failures = outcomes.filter((outcome) => outcome !== '200');
  t.deepEqual(failures, [], `no request failed (${outcomes.length} requests)`);
  t.log(`${outcomes.length} requests, none refused or failed, across ${seenWorkers.size} workers`);
});
