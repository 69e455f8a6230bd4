// Per-key limits beyond rpm (issue 30 item 11): tokens per minute and requests in flight.
//
// Tokens per minute is a leaky bucket of one minute, kept as one time per key like the rpm
// limiter's GCRA: the tokens a call used are counted when it is charged (input + output, cached
// input included), each adding 60 000 / tpm ms to the key's "full until" time; the bucket
// drains at tpm tokens per minute. A request is refused (429) while the tokens counted in the
// last minute reach the limit, i.e. while the bucket is full; it is admitted again once enough
// has drained. A call is never cut for its tokens: its usage is only known at its end, so one
// large call may overfill the bucket and the key waits longer (Retry-After is capped at 60 s).
//
// Requests in flight: a slot is taken when a request is admitted and given back when it ends in
// any way (answer, error, client gone, stream cut: the middleware's finally). In Redis each slot
// is a member of a sorted set scored with its lease's end, renewed while the request runs, so a
// crashed instance's slots free themselves once their lease ends.
//
// Both read the limits from the key object the request already has (looked up or cached): a key
// without them costs nothing, and no limit costs a database query. The clock is the process's
// (services.now), so a test moves the window with its own clock.
import type { ApiKey } from './api-keys.js';

export const windowMs = 60_000;

export interface TokenDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Tokens the key may still use in the window before requests are refused. */
  readonly remaining: number;
  /** Until the bucket is empty again. */
  readonly resetMs: number;
  /** Until the next request would be admitted (0 when allowed). */
  readonly retryAfterMs: number;
}

/** The bucket's step shared by both stores, kept pure so it is tested once. `fullUntil`: the key's stored time (0: none). */
export function tokenDecision(fullUntil: number, now: number, tokensPerMinute: number): TokenDecision {
  const level = Math.max(0, fullUntil - now); // ms of draining still ahead: level / windowMs of the allowance is used
  if (level >= windowMs) {
    // Admitted once the level is below a whole window: 1 ms after it drains to exactly one.
    return { allowed: false, limit: tokensPerMinute, remaining: 0, resetMs: level, retryAfterMs: Math.floor(level - windowMs) + 1 };
  }
  const remaining = Math.ceil(((windowMs - level) * tokensPerMinute) / windowMs - 1e-9);
  return { allowed: true, limit: tokensPerMinute, remaining, resetMs: level, retryAfterMs: 0 };
}

/** How far `tokens` move a key's bucket at `tokensPerMinute` (ms). */
export function tokensAsMs(tokens: number, tokensPerMinute: number): number {
  return (tokens * windowMs) / tokensPerMinute;
}

/** Gives a request's in-flight slot back (never throws: a store that cannot be reached lets its lease end). */
export type ReleaseSlot = () => Promise<void>;

/** Where the counters live: this process (MemoryKeyLimitStore) or Redis (key-limits-redis.ts). */
export interface KeyLimitStore {
  /** The key's "full until" time (ms; 0 when it has none). */
  tokensFullUntil(keyId: string, now: number): Promise<number>;
  /** Adds `ms` to the key's bucket. */
  addTokens(keyId: string, ms: number, now: number): Promise<void>;
  /** Takes one of the key's `max` slots for `requestId`, or null when all are taken. */
  enter(keyId: string, requestId: string, max: number, now: number): Promise<ReleaseSlot | null>;
  close(): Promise<void>;
}

export class MemoryKeyLimitStore implements KeyLimitStore {
  private readonly fullUntil = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private sweeps = 0;

  async tokensFullUntil(keyId: string): Promise<number> {
    return this.fullUntil.get(keyId) ?? 0;
  }

  async addTokens(keyId: string, ms: number, now: number): Promise<void> {
    this.fullUntil.set(keyId, Math.max(this.fullUntil.get(keyId) ?? 0, now) + ms);
    // Forget drained buckets now and then, so the map does not grow without bound.
    if (++this.sweeps % 10_000 === 0) for (const [id, until] of this.fullUntil) if (until <= now) this.fullUntil.delete(id);
  }

  async enter(keyId: string, _requestId: string, max: number): Promise<ReleaseSlot | null> {
    const taken = this.inFlight.get(keyId) ?? 0;
    if (taken >= max) return null;
    this.inFlight.set(keyId, taken + 1);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(keyId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(keyId);
      else this.inFlight.set(keyId, left);
    };
  }

  /** Requests of the key in flight now (for tests and status). */
  inFlightOf(keyId: string): number {
    return this.inFlight.get(keyId) ?? 0;
  }

  async close(): Promise<void> {}
}

/** The service the middleware and the pipeline use: the key's own limits over the store. */
export class KeyLimits {
  constructor(
    readonly store: KeyLimitStore,
    private readonly now: () => number,
    private readonly onCountFailed: (error: unknown, keyId: string) => void = () => undefined,
  ) {}

  /** The key's token decision now, or undefined when it has no tpm. May throw CacheUnavailableError (cache.on_unavailable: closed). */
  async checkTokens(apiKey: ApiKey): Promise<TokenDecision | undefined> {
    if (apiKey.tpm === null) return undefined;
    const now = this.now();
    return tokenDecision(await this.store.tokensFullUntil(apiKey.id, now), now, apiKey.tpm);
  }

  /**
   * Counts a finished call's tokens against the key's tpm (nothing when it has none). Never
   * throws: the call is already answered and charged; a count Redis did not take is logged.
   */
  async countTokens(apiKey: ApiKey, tokens: number): Promise<void> {
    if (apiKey.tpm === null || !(tokens > 0)) return;
    try {
      await this.store.addTokens(apiKey.id, tokensAsMs(tokens, apiKey.tpm), this.now());
    } catch (error) {
      this.onCountFailed(error, apiKey.id);
    }
  }

  /**
   * Takes a slot of the key's max_in_flight: its release, null when every slot is taken, or
   * undefined when the key has no such limit. May throw CacheUnavailableError.
   */
  async enter(apiKey: ApiKey, requestId: string): Promise<ReleaseSlot | null | undefined> {
    if (apiKey.maxInFlight === null) return undefined;
    return this.store.enter(apiKey.id, requestId, apiKey.maxInFlight, this.now());
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
