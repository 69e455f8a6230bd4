// Per-key rate limit as GCRA (generic cell rate algorithm): a key may burst its whole
// per-minute allowance, then gets one request every 60/rpm seconds. One timestamp per key
// ("theoretical arrival time"), updated only when a request is admitted, so a rejected
// request is never counted. In memory for one process; in Redis (one Lua script, atomic,
// Redis's own clock) when several processes share the limit.
import type { createClient } from '@redis/client';
import { CacheUnavailableError, type RedisConnection } from '../cache/redis-connection.js';

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Until the allowance is whole again. */
  readonly resetMs: number;
  /** Until the next request would be admitted (0 when allowed). */
  readonly retryAfterMs: number;
}

export interface RateLimiter {
  consume(keyId: string, requestsPerMinute: number): Promise<RateDecision>;
  close(): Promise<void>;
}

const windowMs = 60_000;

/** The GCRA step shared by both stores, kept pure so it is tested once. */
export function gcra(tat: number, now: number, requestsPerMinute: number): { decision: RateDecision; newTat: number | null } {
  const interval = windowMs / requestsPerMinute;
  const base = Math.max(tat, now);
  const newTat = base + interval;
  const allowAt = newTat - windowMs;
  if (allowAt > now) {
    return {
      decision: { allowed: false, limit: requestsPerMinute, remaining: 0, resetMs: base - now, retryAfterMs: allowAt - now },
      newTat: null,
    };
  }
  const remaining = Math.floor((windowMs - (newTat - now)) / interval + 1e-9);
  return {
    decision: { allowed: true, limit: requestsPerMinute, remaining, resetMs: newTat - now, retryAfterMs: 0 },
    newTat,
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  private sweeps = 0;

  constructor(private readonly now: () => number = () => performance.timeOrigin + performance.now()) {}

  async consume(keyId: string, requestsPerMinute: number): Promise<RateDecision> {
    const now = this.now();
    const { decision, newTat } = gcra(this.tats.get(keyId) ?? now, now, requestsPerMinute);
    if (newTat !== null) this.tats.set(keyId, newTat);
    // Forget keys whose allowance is whole again, so the map does not grow without bound.
    if (++this.sweeps % 10_000 === 0) for (const [id, tat] of this.tats) if (tat <= now) this.tats.delete(id);
    return decision;
  }

  async close(): Promise<void> {}
}

// KEYS[1] = the key's TAT; ARGV[1] = requests per minute. Returns {allowed, remaining, resetMs, retryAfterMs}.
const gcraScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rpm = tonumber(ARGV[1])
local interval = 60000 / rpm
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local newTat = tat + interval
local allowAt = newTat - 60000
if allowAt > now then
  return {0, 0, tostring(tat - now), tostring(allowAt - now)}
end
redis.call('SET', KEYS[1], tostring(newTat), 'PX', math.ceil(newTat - now) + 1000)
local remaining = math.floor((60000 - (newTat - now)) / interval + 1e-9)
return {1, remaining, tostring(newTat - now), '0'}
`;

type RedisClient = ReturnType<typeof createClient>;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace = 'gateway:ratelimit:',
  ) {}

  async consume(keyId: string, requestsPerMinute: number): Promise<RateDecision> {
    const [allowed, remaining, resetMs, retryAfterMs] = (await this.client.eval(gcraScript, {
      keys: [this.namespace + keyId],
      arguments: [String(requestsPerMinute)],
    })) as [number, number, string, string];
    return {
      allowed: allowed === 1,
      limit: requestsPerMinute,
      remaining,
      resetMs: Number(resetMs),
      retryAfterMs: Number(retryAfterMs),
    };
  }

  async close(): Promise<void> {}
}

/**
 * The Redis limiter when Redis answers within `cache.timeout`; otherwise, by policy:
 * "open" — this process's own in-memory limiter (each process then admits a key's whole
 * allowance on its own until Redis is back), "closed" — CacheUnavailableError (a 503).
 * While the connection is known to be down no command is tried at all.
 */
export class RedisRateLimiterWithFallback implements RateLimiter {
  private readonly fallback = new MemoryRateLimiter();

  constructor(
    private readonly redis: RateLimiter,
    private readonly connection: Pick<RedisConnection, 'isReady' | 'displayUrl' | 'run'>,
    private readonly onUnavailable: 'open' | 'closed',
  ) {}

  async consume(keyId: string, requestsPerMinute: number): Promise<RateDecision> {
    let failure: unknown;
    if (this.connection.isReady) {
      try {
        return await this.connection.run(() => this.redis.consume(keyId, requestsPerMinute));
      } catch (error) {
        failure = error; // a timeout or a connection lost mid-command
      }
    }
    if (this.onUnavailable === 'closed') throw failure instanceof CacheUnavailableError ? failure : new CacheUnavailableError(this.connection.displayUrl, failure);
    return this.fallback.consume(keyId, requestsPerMinute);
  }

  async close(): Promise<void> {}
}
