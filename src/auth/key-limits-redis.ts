// The per-key tokens-per-minute and in-flight counters in Redis, shared by every instance on
// the same cache.url (key-limits.ts says what they count). Times are the instances' own clocks
// (services.now), passed in: a test's clock moves them, and instances a few ms apart in time
// change nothing that matters at a minute's scale.
// - tokens: `<ns>tpm:<key id>` holds the bucket's "full until" time, with a TTL of its drain.
// - in flight: `<ns>inflight:<key id>` is a sorted set of request ids scored with their lease's
//   end. Entering drops the expired ones first (a crashed instance's slots) and admits while
//   fewer than max remain; this process renews its live slots' leases every third of a lease.
import type { createClient } from '@redis/client';
import { CacheUnavailableError, type RedisConnection } from '../cache/redis-connection.js';
import { MemoryKeyLimitStore, type KeyLimitStore, type ReleaseSlot } from './key-limits.js';

type RedisClient = ReturnType<typeof createClient>;

/** How long a slot outlives its last renewal: the longest a crashed instance keeps it taken. */
export const inFlightLeaseMs = 60_000;

// KEYS[1] = the bucket; ARGV = now, ms to add.
const addTokensScript = `
local now = tonumber(ARGV[1])
local full = tonumber(redis.call('GET', KEYS[1]) or 0)
if full < now then full = now end
full = full + tonumber(ARGV[2])
redis.call('SET', KEYS[1], tostring(full), 'PX', math.ceil(full - now) + 1000)
return 1
`;

// KEYS[1] = the key's set; ARGV = now, max, lease end, request id. Returns 1 when admitted.
const enterScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ${inFlightLeaseMs} * 2)
return 1
`;

export class RedisKeyLimitStore implements KeyLimitStore {
  /** This process's slots: request id → the set they are in, renewed while they last. */
  private readonly live = new Map<string, string>();
  private renewal: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(
    private readonly client: RedisClient,
    private readonly now: () => number,
    private readonly namespace = 'gateway:',
    /** How the background commands (a release, the renewals) are sent: within cache.timeout when given a connection's `run`. */
    private readonly run: <T>(command: () => Promise<T>) => Promise<T> = (command) => command(),
  ) {}

  async tokensFullUntil(keyId: string): Promise<number> {
    return Number((await this.client.get(`${this.namespace}tpm:${keyId}`)) ?? 0);
  }

  async addTokens(keyId: string, ms: number, now: number): Promise<void> {
    await this.client.eval(addTokensScript, { keys: [`${this.namespace}tpm:${keyId}`], arguments: [String(now), String(ms)] });
  }

  async enter(keyId: string, requestId: string, max: number, now: number): Promise<ReleaseSlot | null> {
    const set = `${this.namespace}inflight:${keyId}`;
    const admitted = await this.client.eval(enterScript, { keys: [set], arguments: [String(now), String(max), String(now + inFlightLeaseMs), requestId] });
    if (Number(admitted) !== 1) return null;
    this.live.set(requestId, set);
    this.renewal ??= setInterval(() => void this.renew(), inFlightLeaseMs / 3).unref();
    return async () => {
      // Forgotten here first, whatever Redis does next: a slot Redis did not drop is no longer
      // renewed, so its lease ends it.
      if (!this.live.delete(requestId)) return;
      if (this.live.size === 0) this.stopRenewal();
      await this.run(() => this.client.zRem(set, requestId));
    };
  }

  /** Moves the leases of this process's live slots forward. */
  private async renew(): Promise<void> {
    if (this.renewing || this.live.size === 0) return;
    this.renewing = true;
    try {
      const until = this.now() + inFlightLeaseMs;
      const batch = this.client.multi();
      for (const [requestId, set] of this.live) batch.zAdd(set, { score: until, value: requestId }, { condition: 'XX' });
      await this.run(() => batch.exec());
    } catch {
      // Redis is away: the leases run on; the next renewal (or the slots' release) tries again.
    } finally {
      this.renewing = false;
    }
  }

  private stopRenewal(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  async close(): Promise<void> {
    this.stopRenewal();
  }
}

/**
 * The Redis store while Redis answers within cache.timeout; otherwise, by policy: "open" — this
 * process's own counters (each process then limits a key on its own until Redis is back),
 * "closed" — CacheUnavailableError (a 503), as the rpm limiter does. A slot is given back to
 * the store that gave it; a release or a count Redis does not take is left to the lease or lost
 * (an undercount, never a key blocked).
 */
export class RedisKeyLimitStoreWithFallback implements KeyLimitStore {
  private readonly fallback = new MemoryKeyLimitStore();

  constructor(
    private readonly redis: RedisKeyLimitStore,
    private readonly connection: Pick<RedisConnection, 'isReady' | 'displayUrl' | 'run'>,
    private readonly onUnavailable: 'open' | 'closed',
  ) {}

  private async either<T>(onRedis: () => Promise<T>, onMemory: () => Promise<T>): Promise<T> {
    let failure: unknown;
    if (this.connection.isReady) {
      try {
        return await this.connection.run(onRedis);
      } catch (error) {
        failure = error; // a timeout or a connection lost mid-command
      }
    }
    if (this.onUnavailable === 'closed') throw failure instanceof CacheUnavailableError ? failure : new CacheUnavailableError(this.connection.displayUrl, failure);
    return onMemory();
  }

  tokensFullUntil(keyId: string, now: number): Promise<number> {
    return this.either(
      () => this.redis.tokensFullUntil(keyId),
      () => this.fallback.tokensFullUntil(keyId),
    );
  }

  addTokens(keyId: string, ms: number, now: number): Promise<void> {
    return this.either(
      () => this.redis.addTokens(keyId, ms, now),
      () => this.fallback.addTokens(keyId, ms, now),
    );
  }

  async enter(keyId: string, requestId: string, max: number, now: number): Promise<ReleaseSlot | null> {
    let failure: unknown;
    if (this.connection.isReady) {
      let entering: Promise<ReleaseSlot | null> | undefined;
      try {
        const release = await this.connection.run(() => (entering = this.redis.enter(keyId, requestId, max, now)));
        return release && (() => release().catch(() => undefined));
      } catch (error) {
        failure = error;
        // Timed out, but Redis may still admit it: a slot that arrives late is given back at once.
        void entering?.then((late) => late?.().catch(() => undefined), () => undefined);
      }
    }
    if (this.onUnavailable === 'closed') throw failure instanceof CacheUnavailableError ? failure : new CacheUnavailableError(this.connection.displayUrl, failure);
    return this.fallback.enter(keyId, requestId, max);
  }

  async close(): Promise<void> {
    await this.redis.close();
  }
}
