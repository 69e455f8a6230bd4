// The faults a round injects while its load runs, chosen by the round's seed: SIGKILL of a
// serve process in the middle of streams (then a restart), SIGKILL of the job worker in the
// middle of jobs (restart), PostgreSQL or Redis cut for a few seconds at the TCP proxy (then
// restored), and the hostile inputs.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from './cluster.js';
import { type HostileOutcome, sendHostileInputs } from './hostile-inputs.js';
import type { Load } from './load.js';
import type { Random } from './random.js';

export type FaultKind = 'kill-serve' | 'kill-worker' | 'cut-postgres' | 'cut-redis' | 'hostile';

export const allFaultKinds: readonly FaultKind[] = ['kill-serve', 'kill-worker', 'cut-postgres', 'cut-redis', 'hostile'];

/** SQLite has no server to cut and no Redis (one machine, `cache: memory`). */
export function faultKindsOf(backend: 'sqlite' | 'postgres'): FaultKind[] {
  return backend === 'postgres' ? [...allFaultKinds] : ['kill-serve', 'kill-worker', 'hostile'];
}

/**
 * The faults of round `index`: the kinds take turns as the round's main fault (so a few rounds
 * already see every kind), and half the rounds add a second one at random.
 */
export function chooseFaults(random: Random, kinds: readonly FaultKind[], index: number): FaultKind[] {
  const main = kinds[index % kinds.length];
  const chosen = [main];
  if (random.chance(0.5)) {
    const second = random.pick(kinds);
    if (second !== main && compatible(main, second)) chosen.push(second);
  }
  return chosen;
}

/**
 * A hostile input must get a 4xx; during a cut a request may rightly get a 503 before its body
 * is even read, so the hostile inputs are never sent while PostgreSQL or Redis is cut.
 */
function compatible(first: FaultKind, second: FaultKind): boolean {
  const cuts = (kind: FaultKind) => kind === 'cut-postgres' || kind === 'cut-redis';
  return !((first === 'hostile' && cuts(second)) || (second === 'hostile' && cuts(first)));
}

export interface FaultContext {
  readonly cluster: Cluster;
  readonly load: Load;
  readonly random: Random;
  readonly hostileOutcomes: HostileOutcome[];
}

/**
 * Picks the moment of a fault: waits (up to `timeoutMs`) for `condition` (load in flight) and
 * returns whether it held; the fault is injected either way. Fault timing, not a wait for a
 * result (the chaos checks await results: checks.ts).
 */
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await condition()) return true;
    await sleep(25);
  }
  return false;
}

export async function injectFault(kind: FaultKind, context: FaultContext): Promise<void> {
  const { cluster, load, random } = context;
  await sleep(random.int(200, 1200)); // into the round, with load in flight
  switch (kind) {
    case 'kill-serve': {
      const victim = cluster.process('victim');
      await waitFor(() => (load.streamsInFlight.get(victim.url) ?? 0) > 0, 3000);
      await sleep(random.int(0, 300)); // a few chunks into the streams
      await victim.kill();
      await sleep(random.int(200, 1000)); // clients meet a dead port meanwhile
      await victim.start();
      return;
    }
    case 'kill-worker': {
      const worker = cluster.process('worker');
      // A job the worker holds the lease of: being submitted or polled.
      await waitFor(async () => {
        const claimed = await cluster.database.db('jobs').whereNotNull('lease_owner').whereNotIn('status', ['completed', 'failed', 'cancelled']).first('id').catch(() => undefined);
        return claimed !== undefined;
      }, 3000);
      await sleep(random.int(0, 300)); // into the submit or poll
      await worker.kill();
      await sleep(random.int(200, 1000)); // jobs meet no worker meanwhile
      await worker.start();
      return;
    }
    case 'cut-postgres':
    case 'cut-redis': {
      const proxy = kind === 'cut-postgres' ? cluster.databaseProxy : cluster.redisProxy;
      if (!proxy) throw new Error(`${kind} needs the PostgreSQL backend`);
      proxy.cut();
      await sleep(random.int(2000, 4000)); // how long the outage lasts
      proxy.restore();
      return;
    }
    case 'hostile':
      context.hostileOutcomes.push(...(await sendHostileInputs(cluster, random.pick(cluster.accounts.slice(0, 3)))));
      return;
  }
}
