// Prompt-prefix caching as the vendors bill it, kept in memory per simulator instance: an
// entry is a hash of (model, prompt prefix) with the prefix's token count, alive 5 minutes
// after its last use (sliding, like Anthropic's ephemeral cache and OpenAI's automatic one).
// Callers hash their prefixes incrementally (see PrefixHasher) so that checking every
// message boundary of a long conversation costs one pass over it.
import { createHash, type Hash } from 'node:crypto';

export const cacheTtlMs = 5 * 60_000;
/** Sweep expired entries at most this often; lookups check expiry themselves. */
const sweepIntervalMs = 30_000;
/** A hard bound so a long benchmark with unique prompts cannot grow memory without end. */
const maxEntries = 100_000;

export class PrefixCache {
  private readonly entries = new Map<string, { tokens: number; expiresAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The cached token count of a prefix (refreshing its lifetime), or 0 when absent or expired. */
  lookup(key: string): number {
    const entry = this.entries.get(key);
    if (!entry) return 0;
    const now = this.now();
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return 0;
    }
    entry.expiresAt = now + cacheTtlMs;
    return entry.tokens;
  }

  store(key: string, tokens: number): void {
    const now = this.now();
    if (now - this.lastSweep > sweepIntervalMs || this.entries.size >= maxEntries) this.sweep(now);
    // Re-inserting moves the key to the end, so the oldest entries are first in iteration order.
    this.entries.delete(key);
    this.entries.set(key, { tokens, expiresAt: now + cacheTtlMs });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Still full of live entries: drop the least recently stored ones.
    if (this.entries.size >= maxEntries) {
      let excess = this.entries.size - maxEntries + Math.ceil(maxEntries / 10);
      for (const key of this.entries.keys()) {
        if (excess-- <= 0) break;
        this.entries.delete(key);
      }
    }
  }
}

/** Incremental hash of a prompt; `key()` names the prefix fed so far, without ending the hash. */
export class PrefixHasher {
  private readonly hash: Hash;

  constructor(namespace: string, model: string) {
    this.hash = createHash('sha256').update(`${namespace}\u0000${model}\u0000`);
  }

  update(part: string): this {
    this.hash.update(part).update('\u0001');
    return this;
  }

  key(): string {
    return this.hash.copy().digest('base64');
  }
}

/** JSON of a prompt part without its cache_control markers (they do not change the prefix). */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner));
}
