// The one Redis client of a process (rate limits and prompt-cache prefixes share it), built so
// that a Redis outage costs a request at most `cache.timeout`, never a hang:
// - every command goes through `run`, which gives up after that timeout (node-redis's own
//   command timeout only covers the wait before a command is written, not the wait for its
//   reply); while the connection is down commands are refused at once instead of queued (a
//   queued command waited for as long as Redis was down);
// - a command that timed out marks the connection stalled: no command is sent (so none piles
//   up unanswered) until one PING probe answers;
// - the connection is retried in the background with a capped backoff, and its loss and its
//   recovery are logged once each, not every attempt with a stack.
// What a request does when Redis is unavailable (the `cache.on_unavailable` policy) is decided
// by the users of this connection (rate-limiter.ts, prefix-tracker.ts).
import type { createClient } from '@redis/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';

export type RedisClient = ReturnType<typeof createClient>;

/** Longest pause between reconnect attempts (ms); also the Retry-After of a fail-closed 503. */
export const reconnectCapMs = 2_000;

/** Thrown (under `cache.on_unavailable: closed`) when a request needs Redis and it does not answer. */
export class CacheUnavailableError extends Error {
  constructor(readonly displayUrl: string, cause?: unknown) {
    super(`the cache (Redis at ${displayUrl}) is unavailable`, { cause });
    this.name = 'CacheUnavailableError';
  }
}

export interface RedisConnection {
  readonly client: RedisClient;
  /** The URL without its password, for logs and error messages. */
  readonly displayUrl: string;
  /** Connected and answering: commands are sent; false while down or stalled (commands fail at once). */
  readonly isReady: boolean;
  /** Runs a command, rejecting with CacheUnavailableError when Redis is down or does not answer within cache.timeout. */
  run<T>(command: (client: RedisClient) => Promise<T>): Promise<T>;
  /** Resolves once Redis answers a PING within the command timeout; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** "redis://user:secret@host:6379/0" → "redis://user@host:6379/0". */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

/** Exponential from 100 ms, capped, with ±10% jitter so many processes do not reconnect in step. */
export function reconnectDelayMs(attempt: number): number {
  const base = Math.min(100 * 2 ** Math.min(attempt, 10), reconnectCapMs);
  return Math.round(base * (0.9 + Math.random() * 0.2));
}

/**
 * Starts connecting and resolves once Redis is ready or has refused the first attempt (at
 * most `startWaitMs`): a process starts while Redis is down and recovers when it returns.
 * `onUnreachableAtStart` receives the first failure, for the caller's one log line.
 */
export async function openRedisConnection(
  url: string,
  options: { timeoutMs: number; logger: Logger; startWaitMs?: number; onUnreachableAtStart?: (reason: string) => void },
): Promise<RedisConnection> {
  const { createClient } = await import('@redis/client');
  const displayUrl = redactRedisUrl(url);
  const { logger } = options;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: Math.max(options.timeoutMs, 1_000), reconnectStrategy: (attempt) => reconnectDelayMs(attempt) },
  });
  // "starting" until the first outcome; then "up" or "down". Only transitions are logged.
  let state: 'starting' | 'up' | 'down' = 'starting';
  /** A command timed out on an open connection; cleared by a probe's answer or a new connection. */
  let stalled = false;
  let firstOutcome: (reason?: string) => void = () => undefined;
  const started = new Promise<string | undefined>((resolve) => (firstOutcome = resolve));
  client.on('ready', () => {
    stalled = false;
    if (state === 'down') logger.warn({ cache: displayUrl }, `Redis at ${displayUrl} is reachable again: rate limits are shared again`);
    state = 'up';
    firstOutcome();
  });
  client.on('error', (error: Error) => {
    const reason = error.message || error.name;
    if (state === 'up') logger.error({ cache: displayUrl, reason }, `lost the connection to Redis at ${displayUrl} (${reason}); reconnecting in the background`);
    if (state === 'starting') firstOutcome(reason);
    state = 'down';
  });
  client.connect().catch(() => undefined); // retried by the reconnect strategy until close()
  const wait = setTimeout(() => firstOutcome(`no answer within ${options.startWaitMs ?? 2_000} ms`), options.startWaitMs ?? 2_000);
  const failure = await started;
  clearTimeout(wait);
  if (failure !== undefined) {
    if (state === 'starting') state = 'down';
    options.onUnreachableAtStart?.(failure);
  }
  const probeUntilAnswered = async () => {
    while (stalled && client.isOpen) {
      try {
        await client.ping(); // no timeout of ours: it answers when Redis does
        if (stalled) logger.warn({ cache: displayUrl }, `Redis at ${displayUrl} answers again: rate limits are shared again`);
        stalled = false;
        state = 'up';
      } catch {
        await sleep(reconnectCapMs, undefined, { ref: false }); // offline: the reconnect's 'ready' clears the stall
      }
    }
  };
  const shared = client as unknown as RedisClient; // the command-options generic differs; the commands are the same
  const run = <T>(command: (redis: RedisClient) => Promise<T>): Promise<T> => {
    if (!client.isReady || stalled) return Promise.reject(new CacheUnavailableError(displayUrl));
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        // Timers run before the poll phase: after an event-loop stall the reply may already be
        // waiting in the socket. Give it that turn (setImmediate runs after the poll phase).
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new CacheUnavailableError(displayUrl, new Error(`no answer within ${options.timeoutMs} ms`)));
          if (stalled || !client.isReady) return;
          stalled = true;
          state = 'down';
          logger.error({ cache: displayUrl }, `Redis at ${displayUrl} does not answer within ${options.timeoutMs} ms; sending it nothing until it answers a PING`);
          void probeUntilAnswered();
        });
      }, options.timeoutMs);
      command(shared).then(
        (value) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          reject(new CacheUnavailableError(displayUrl, error));
        },
      );
    });
  };
  return {
    client: shared,
    displayUrl,
    get isReady() {
      return client.isReady && !stalled;
    },
    run,
    async ping() {
      await run((redis) => redis.ping());
    },
    async close() {
      stalled = false; // ends the probe loop
      if (!client.isOpen) return;
      // A graceful close waits for every pending reply: bounded, as Redis may not answer.
      if (client.isReady) await Promise.race([client.close().catch(() => undefined), sleep(options.timeoutMs * 4, undefined, { ref: false })]);
      if (client.isOpen) client.destroy();
    },
  };
}
