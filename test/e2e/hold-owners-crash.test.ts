// kill -9 during streams: the holds of the requests that died with the process are released
// within seconds by the processes still alive (and a newly started one), not after holds.ttl
// (1 h here); the streams of a second, live process keep their holds and are charged as usual.
import type { ExecutionContext } from 'ava';
import { assertLedgerInvariants, countRun, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, twoServesEnv, writeSharedConfig, type RunningProcess } from '../helpers/processes.js';

interface OpenStream {
  /** Resolves with the whole body, or with what came before the connection broke. */
  readonly done: Promise<string>;
  /** Hangs up (the gateway charges what was delivered). */
  cancel(): Promise<void>;
}

/** Starts a chat stream and resolves once its first chunk arrived (its hold is placed); reads the rest in the background. */
async function openStream(gateway: RunningProcess, key: string, prompt: string): Promise<OpenStream> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', stream: true, max_tokens: 1000, messages: [{ role: 'user', content: prompt }] }),
  });
  if (response.status !== 200) throw new Error(`stream refused: ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const first = await reader.read();
  let text = decoder.decode(first.value, { stream: true });
  const done = (async () => {
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    } catch {
      // the process died under it
    }
    return text;
  })();
  return { done, cancel: () => reader.cancel() };
}

async function heldUnits(database: TestDatabase, accountId: string): Promise<bigint> {
  return BigInt((await database.db('accounts').where({ id: accountId }).first()).held_units);
}

/**
 * Waits until the account holds nothing; how long it took (for the log only). holds.ttl is 1 h
 * here, so the helper's deadline (a minute) already means "released by the owner sweep".
 */
async function waitUntilNothingHeld(database: TestDatabase, accountId: string, what: string): Promise<number> {
  const started = Date.now();
  await eventually(async () => (await heldUnits(database, accountId)) === 0n, { what, intervalMs: 50 });
  return Date.now() - started;
}

async function run(t: ExecutionContext, database: TestDatabase): Promise<void> {
  t.timeout(120_000);
  const simulator = await startSimulatorProcess(t);
  // Heartbeats every 250 ms, gone after 2 s; holds.ttl stays at 1 h: only the owner sweep can release in time.
  const config = writeSharedConfig(simulator.url, { holds: { ttl: '1h', sweep_interval: '30s', heartbeat_interval: '250ms', owner_gone_after: '2s' } });
  // Two serves at once (the survivor and a second doomed one): on SQLite they share their rate limits through Redis.
  const env = processEnv(config, database, twoServesEnv(database));
  const start = () => startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  const victims = await createClient(database, 100_000_000n);
  const bystanders = await createClient(database, 100_000_000n);
  const countActive = async (accountId: string) => Number((await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first())?.n);

  // 1. 25 long streams on a process that dies; the process started next releases their holds.
  const doomed = await start();
  await Promise.all(Array.from({ length: 25 }, (_, index) => openStream(doomed, victims.key, `story ${index} [[sim:tokens=400]] [[sim:delay=100]]`)));
  const heldByVictims = await heldUnits(database, victims.accountId);
  t.true(heldByVictims > 0n); // a precondition (the streams hold money); the exact count of holds follows
  t.is(await countActive(victims.accountId), 25);
  await doomed.kill();
  const survivor = await start();
  t.teardown(() => survivor.stop());
  const tookMs = await waitUntilNothingHeld(database, victims.accountId, "the dead process's holds were released long before holds.ttl");
  t.log(`released ${heldByVictims} units of 25 dead requests ${tookMs} ms after the next process started`);

  // 2. The survivor serves 5 long streams while another process dies with 10 more: the survivor
  // releases the dead one's holds and not its own.
  const liveStreams = await Promise.all(Array.from({ length: 5 }, (_, index) => openStream(survivor, bystanders.key, `tale ${index} [[sim:tokens=3000]] [[sim:delay=100]]`)));
  const heldByBystanders = await heldUnits(database, bystanders.accountId);
  const doomedToo = await start();
  await Promise.all(Array.from({ length: 10 }, (_, index) => openStream(doomedToo, victims.key, `saga ${index} [[sim:tokens=400]] [[sim:delay=100]]`)));
  t.is(await countActive(victims.accountId), 10);
  await doomedToo.kill();
  await waitUntilNothingHeld(database, victims.accountId, "a live peer released the dead process's holds");
  const victimHolds = await database.db('holds').where({ account_id: victims.accountId });
  t.is(victimHolds.length, 35);
  t.true(victimHolds.every((hold: { status: string }) => hold.status === 'released'));
  const victimCharges = await database.db('ledger_transactions').where({ account_id: victims.accountId, kind: 'charge' });
  t.is(victimCharges.length, 0, 'nothing was charged for the requests that died');

  // The live process's streams are still running, their holds untouched by either sweeper.
  t.is(await heldUnits(database, bystanders.accountId), heldByBystanders);
  t.is(await countActive(bystanders.accountId), 5);
  // Their clients hang up now: each is settled for what it delivered, by its own process.
  await Promise.all(liveStreams.map((stream) => stream.cancel()));
  await waitUntilNothingHeld(database, bystanders.accountId, "the survivor's own holds were settled");
  const settled = await database.db('holds').where({ account_id: bystanders.accountId, status: 'settled' });
  t.is(settled.length, 5, 'each live stream was settled by its process, not released by a sweep');
  const bystanderCharges = await database.db('ledger_transactions').where({ account_id: bystanders.accountId, kind: 'charge' });
  t.is(bystanderCharges.length, 5);
  await assertLedgerInvariants(t, database.db);
  if (database.backend === 'sqlite') countRun('redis');
}

testOnBackends('kill -9 during 25 streams: the next process releases their holds within seconds; a live process\'s own streams keep theirs', run, { sqliteNeeds: ['redis'] });
