// The state a single process keeps in memory, kept once for all the workers of `serve --workers N`
// on one machine without Redis (docs/scaling.md, "Several workers on one machine"): the primary
// holds it (this file's SharedState) and the workers reach it over cluster IPC (ClusterClient)
// through the interfaces the Redis mode uses: a RateLimiter, a KeyLimitStore and Keyv stores.
// So one key's rpm, tpm and in-flight slots are counted once for the machine, and the prompt-cache
// prefixes, returned Responses items and pending OIDC logins are seen by every worker.
//
// A request that needs none of this state sends nothing: an IPC round trip (about 0.1 ms here,
// docs/performance.md) is paid only by the calls that a single process answers from its memory.
// The keys seen live, the route cooldowns and the queued log rows stay in each worker: a revoked
// key is refused by the hold's own statement in the database, whichever worker holds it.
import type { Worker } from 'node:cluster';
import { BoundedMap } from '../cache/keyv.js';
import { MemoryKeyLimitStore, type KeyLimitStore, type ReleaseSlot } from '../auth/key-limits.js';
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from '../auth/rate-limiter.js';

/** A worker's call into the primary, and its answer. */
export interface StateCall {
  readonly t: 'state';
  readonly id: number;
  readonly op: string;
  readonly args: readonly unknown[];
}
interface StateAnswer {
  readonly t: 'state';
  readonly id: number;
  readonly value?: unknown;
  readonly error?: string;
}

export function isStateCall(message: unknown): message is StateCall {
  return typeof message === 'object' && message !== null && (message as { t?: unknown }).t === 'state';
}

/** Entries each Keyv namespace keeps at most in the primary (as a single process's createKeyv does). */
const namespaceEntries: Readonly<Record<string, number>> = { 'returned-items': 10_000, 'oidc-login': 10_000 };

/** The primary's side: the one copy of the state, and the answers to the workers' calls. */
export class SharedState {
  private readonly limiter: MemoryRateLimiter;
  private readonly limits = new MemoryKeyLimitStore();
  private readonly stores = new Map<string, BoundedMap<string, unknown>>();
  /** In-flight slots by worker: a worker that dies gives its slots back (its requests died with it). */
  private readonly slots = new Map<number, Map<string, ReleaseSlot>>();
  private slotIds = 0;

  /** `rateClock`: the rate limiter's clock (the machine's; a test may freeze it). */
  constructor(rateClock?: () => number) {
    this.limiter = new MemoryRateLimiter(rateClock);
  }

  /** Answers one call of `worker`. */
  async answer(worker: Pick<Worker, 'id' | 'send' | 'isConnected'>, call: StateCall): Promise<void> {
    let answer: StateAnswer;
    try {
      answer = { t: 'state', id: call.id, value: await this.run(worker.id, call.op, call.args) };
    } catch (error) {
      answer = { t: 'state', id: call.id, error: error instanceof Error ? error.message : String(error) };
    }
    if (worker.isConnected()) worker.send(answer);
  }

  /** Gives back the in-flight slots a worker still held (it exited). */
  forgetWorker(workerId: number): void {
    const held = this.slots.get(workerId);
    this.slots.delete(workerId);
    for (const release of held?.values() ?? []) void release();
  }

  private store(namespace: string): BoundedMap<string, unknown> {
    let store = this.stores.get(namespace);
    if (!store) this.stores.set(namespace, (store = new BoundedMap(namespaceEntries[namespace] ?? 100_000)));
    return store;
  }

  private async run(workerId: number, op: string, args: readonly unknown[]): Promise<unknown> {
    const [a, b, c] = args as [string, unknown, unknown];
    switch (op) {
      case 'rate.consume':
        return this.limiter.consume(a, b as number);
      case 'tokens.fullUntil':
        return this.limits.tokensFullUntil(a);
      case 'tokens.add':
        return this.limits.addTokens(a, b as number, c as number);
      case 'slot.enter': {
        const release = await this.limits.enter(a, b as string, c as number);
        if (!release) return null;
        const id = String(++this.slotIds);
        let held = this.slots.get(workerId);
        if (!held) this.slots.set(workerId, (held = new Map()));
        held.set(id, release);
        return id;
      }
      case 'slot.release': {
        const held = this.slots.get(workerId);
        const release = held?.get(a);
        held?.delete(a);
        await release?.();
        return null;
      }
      case 'kv.getMany':
        return (b as string[]).map((key) => this.store(a).get(key) ?? null);
      case 'kv.set':
        this.store(a).set(b as string, c);
        return true;
      case 'kv.delete':
        return this.store(a).delete(b as string);
      case 'kv.clear':
        this.store(a).clear();
        return null;
      default:
        throw new Error(`unknown shared-state call ${op}`);
    }
  }
}

/** A worker's side: calls into the primary over the cluster channel (process.send). */
export class ClusterClient {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(private readonly channel: Pick<NodeJS.Process, 'send' | 'on'> = process) {
    channel.on('message', (message: unknown) => {
      if (!isStateCall(message)) return;
      const answer = message as unknown as StateAnswer;
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      if (answer.error !== undefined) waiting.reject(new Error(`the primary refused ${answer.error}`));
      else waiting.resolve(answer.value);
    });
  }

  call<T>(op: string, ...args: unknown[]): Promise<T> {
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.channel.send!({ t: 'state', id, op, args } satisfies StateCall, undefined, undefined, (error: Error | null) => {
        if (!error) return;
        this.pending.delete(id);
        reject(error);
      });
    });
  }

  rateLimiter(): RateLimiter {
    return {
      consume: (keyId, requestsPerMinute) => this.call<RateDecision>('rate.consume', keyId, requestsPerMinute),
      close: async () => undefined,
    };
  }

  keyLimitStore(): KeyLimitStore {
    return {
      tokensFullUntil: (keyId) => this.call<number>('tokens.fullUntil', keyId),
      addTokens: (keyId, ms, now) => this.call<void>('tokens.add', keyId, ms, now),
      enter: async (keyId, requestId, max) => {
        const slot = await this.call<string | null>('slot.enter', keyId, requestId, max);
        if (slot === null) return null;
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          await this.call('slot.release', slot).catch(() => undefined); // a worker gone gives its slots back anyway
        };
      },
      close: async () => undefined,
    };
  }

  /** A Keyv store (get/set/delete/clear, getMany) whose entries live in the primary under `namespace`. */
  keyvStore(namespace: string): KeyvIpcStore {
    return new KeyvIpcStore(this, namespace);
  }
}

/** The store a worker's Keyv writes to: the primary's map of that namespace (Keyv checks each entry's expiry on read). */
export class KeyvIpcStore {
  /** Set by Keyv; the namespace of the primary's map is the one given at construction. */
  namespace: string | undefined;

  constructor(
    private readonly client: ClusterClient,
    private readonly mapName: string,
  ) {}

  async get(key: string): Promise<unknown> {
    const [value] = await this.getMany([key]);
    return value;
  }

  async getMany(keys: string[]): Promise<unknown[]> {
    const values = await this.client.call<unknown[]>('kv.getMany', this.mapName, keys);
    return values.map((value) => value ?? undefined);
  }

  async set(key: string, value: unknown): Promise<boolean> {
    return this.client.call<boolean>('kv.set', this.mapName, key, value);
  }

  async delete(key: string): Promise<boolean> {
    return this.client.call<boolean>('kv.delete', this.mapName, key);
  }

  async clear(): Promise<void> {
    await this.client.call('kv.clear', this.mapName);
  }
}
