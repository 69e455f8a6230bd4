// keyv instances per purpose: in process memory for one box, in Redis (shared by every
// process) when cache.url is redis://. Namespaces keep purposes apart in one Redis.
import Keyv from 'keyv';
import type { RedisClient } from './redis-connection.js';

/** `redisClient`: the process's shared client (redis-connection.ts: command timeout, no offline queue); else one is made from the URL. */
export async function createKeyv<Value>(cacheUrl: string, namespace: string, options: { maxEntries?: number; redisClient?: RedisClient } = {}): Promise<Keyv<Value>> {
  if (cacheUrl.startsWith('redis')) {
    // Loaded only when Redis is configured (it brings a Redis client: a few MB of heap).
    const { default: KeyvRedis } = await import('@keyv/redis');
    return new Keyv<Value>({ store: new KeyvRedis(options.redisClient ?? cacheUrl), namespace, useKeyPrefix: false });
  }
  return new Keyv<Value>({ store: new BoundedMap(options.maxEntries ?? 100_000), namespace });
}

/** A Map that forgets its oldest entries beyond `maxEntries`, so an in-memory cache cannot grow without bound. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly maxEntries: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key); // re-inserting refreshes its age
    super.set(key, value);
    while (this.size > this.maxEntries) this.delete(this.keys().next().value as K);
    return this;
  }
}
