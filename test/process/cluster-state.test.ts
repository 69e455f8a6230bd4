// The state the workers of `serve --workers N` share through their primary (src/process/cluster-state.ts),
// over an in-process channel standing for cluster IPC: two workers' clients see one allowance, one
// set of in-flight slots (a worker that exits gives its back) and one Keyv store per namespace.
import { EventEmitter } from 'node:events';
import test from 'ava';
import Keyv from 'keyv';
import { ClusterClient, isStateCall, SharedState, type StateCall } from '../../src/process/cluster-state.js';
import { loadConfig } from '../../src/config/load.js';
import { availableParallelism } from 'node:os';

/** A worker's client wired to `state` as worker `id`, through messages as the cluster passes them (JSON). */
function connect(state: SharedState, id: number): ClusterClient {
  const workerSide = new EventEmitter();
  const worker = {
    id,
    isConnected: () => true,
    send: (answer: unknown) => {
      setImmediate(() => workerSide.emit('message', JSON.parse(JSON.stringify(answer))));
      return true;
    },
  };
  const channel = {
    on: (event: string, listener: (...args: any[]) => void) => workerSide.on(event, listener),
    send: (message: unknown, _handle?: unknown, _options?: unknown, callback?: (error: Error | null) => void) => {
      const copy = JSON.parse(JSON.stringify(message)) as StateCall;
      setImmediate(() => {
        if (isStateCall(copy)) void state.answer(worker, copy);
        callback?.(null);
      });
      return true;
    },
  };
  return new ClusterClient(channel as unknown as NodeJS.Process);
}

test('two workers draw on one rate allowance: 60 per minute admits 60 of 61 across both', async (t) => {
  const now = 1_700_000_000_000;
  const state = new SharedState(() => now);
  const [a, b] = [connect(state, 1).rateLimiter(), connect(state, 2).rateLimiter()];
  const decisions = await Promise.all(Array.from({ length: 61 }, (_, index) => (index % 2 === 0 ? a : b).consume('key', 60)));
  t.deepEqual([decisions.filter((d) => d.allowed).length, decisions.filter((d) => !d.allowed).length], [60, 1]);
  t.is(decisions.find((d) => !d.allowed)!.retryAfterMs, 1_000);
});

test('in-flight slots are counted once for the machine, and a worker that exits gives its slots back', async (t) => {
  const state = new SharedState();
  const [a, b] = [connect(state, 1).keyLimitStore(), connect(state, 2).keyLimitStore()];
  const first = await a.enter('key', 'r1', 2, 0);
  const second = await b.enter('key', 'r2', 2, 0);
  t.truthy(first);
  t.truthy(second);
  t.is(await a.enter('key', 'r3', 2, 0), null, 'both slots are taken, one by each worker');
  await second!();
  await second!(); // a second release gives nothing more back
  const third = await a.enter('key', 'r4', 2, 0);
  t.truthy(third);
  t.is(await b.enter('key', 'r5', 2, 0), null);
  state.forgetWorker(1); // worker 1 died with r1 and r4 in flight
  t.truthy(await b.enter('key', 'r6', 2, 0));
  t.truthy(await b.enter('key', 'r7', 2, 0));
  t.is(await b.enter('key', 'r8', 2, 0), null);
});

test('tokens counted by one worker fill the bucket the other reads', async (t) => {
  const state = new SharedState();
  const [a, b] = [connect(state, 1).keyLimitStore(), connect(state, 2).keyLimitStore()];
  await a.addTokens('key', 30_000, 1_000);
  await b.addTokens('key', 30_000, 1_000);
  t.is(await b.tokensFullUntil('key', 1_000), 61_000);
});

test('a Keyv store in the primary: what one worker sets, the other gets and deletes', async (t) => {
  const state = new SharedState();
  const [a, b] = [connect(state, 1), connect(state, 2)].map((client) => new Keyv<number>({ store: client.keyvStore('prefix'), namespace: 'prefix' }));
  await a!.set('h1', 12, 60_000);
  t.deepEqual(await b!.get(['h1', 'h2']), [12, undefined]);
  t.true(await b!.delete('h1'));
  t.is(await a!.get('h1'), undefined);
});

test('an unknown call is refused, not left waiting', async (t) => {
  const client = connect(new SharedState(), 1);
  await t.throwsAsync(client.call('nothing'), { message: /unknown shared-state call nothing/ });
});

test('server.workers: 1 by default, a number, or auto (one per core); anything else is refused', (t) => {
  const base = { database: { url: 'sqlite::memory:' } };
  t.is(loadConfig({ raw: base, env: {} }).server.workers, 1);
  t.is(loadConfig({ raw: { ...base, server: { workers: 3 } }, env: {} }).server.workers, 3);
  t.is(loadConfig({ raw: { ...base, server: { workers: 'auto' } }, env: {} }).server.workers, availableParallelism());
  t.throws(() => loadConfig({ raw: { ...base, server: { workers: 0 } }, env: {} }), { message: /server\.workers/ });
});
