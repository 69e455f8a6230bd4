// Wires the long-lived services of a process from the frozen config, once. Commands and the
// HTTP app receive this object; nothing below reads the config file or the environment.
import type { Knex } from 'knex';
import { Accounts } from './accounts/accounts.js';
import { type Cabinet, openCabinet } from './cabinet/cabinet.js';
import { OidcLogins } from './users/oidc-login.js';
import { openUserServices, type UserServices } from './users/user-services.js';
import { ApiKeys } from './auth/api-keys.js';
import Keyv from 'keyv';
import { KeyLimits, MemoryKeyLimitStore, type KeyLimitStore } from './auth/key-limits.js';
import { RedisKeyLimitStore, RedisKeyLimitStoreWithFallback } from './auth/key-limits-redis.js';
import { MemoryRateLimiter, RedisRateLimiter, RedisRateLimiterWithFallback, type RateLimiter } from './auth/rate-limiter.js';
import { HoldOwner } from './billing/hold-owners.js';
import { Ledger } from './billing/ledger.js';
import { Codes } from './codes/codes.js';
import { PendingSettles } from './billing/pending-settles.js';
import type { JobEndServices } from './pipeline/job-end.js';
import { UsageOutbox } from './billing/usage-outbox.js';
import { UsageRecords } from './billing/usage-records.js';
import { Catalog } from './catalog/catalog.js';
import type { Config } from './config/load.js';
import { SqliteCheckpointer } from './db/checkpointer.js';
import { connectDatabase } from './db/connect.js';
import { tightenDataPermissions } from './db/private-files.js';
import { createLogger, type Logger } from './observability/logger.js';
import { Metrics } from './observability/metrics.js';
import { readBacklog } from './observability/backlog.js';
import { UpstreamObserver } from './pipeline/upstream-observer.js';
import { openTracer, type Tracer } from './observability/tracer.js';
import type { Upstream } from './vendors/shared/http-transport.js';
import { createUpstreams, needsSimulator } from './vendors/upstreams.js';
import { createKeyv } from './cache/keyv.js';
import { openRedisConnection, redactRedisUrl as redactRedisUrlOf, type RedisConnection } from './cache/redis-connection.js';
import type { BlobStore } from './storage/blob-store.js';
import { openBlobStore } from './storage/open-blob-store.js';
import { admitInstance, blobStoreIdentity } from './storage/shared-storage.js';
import { Files } from './storage/files.js';
import { Generations } from './storage/generations.js';
import { PrefixTracker } from './pipeline/prefix-tracker.js';
import type { ClusterClient } from './process/cluster-state.js';
import { ReturnedItems } from './pipeline/returned-items.js';
import { JobStore } from './jobs/job-store.js';
import { referralHooks } from './referrals/referral-hooks.js';
import { openPayments, paymentsNeedSimulator, type PaymentServices } from './payments/open-payments.js';
import { BatchedInserter, requestLogColumns, type RequestLogEntry } from './observability/batched-inserter.js';
import { usageRecordColumns, usageRecordDefaults, type UsageRecord } from './billing/usage-record.js';

export interface Services {
  readonly config: Config;
  readonly db: Knex;
  readonly logger: Logger;
  readonly accounts: Accounts;
  readonly apiKeys: ApiKeys;
  readonly ledger: Ledger;
  readonly catalog: Catalog;
  /**
   * The process's clock (ms since the epoch): Date.now, or a test's clock that it moves
   * forward itself instead of sleeping. Read once per use, as a function reference.
   */
  readonly now: () => number;
  /**
   * Where file bytes live (storage.blobs): one store per process, opened with the services and
   * closed with them. Opening connects to nothing (an S3 store loads its SDK on first use), so
   * commands that never touch files pay nothing for it.
   */
  readonly blobs: BlobStore;
  /** The web cabinet: login links, sessions, admin tokens, cabinet keys (src/cabinet/cabinet.ts). */
  readonly cabinet: Cabinet;
  /** Self-service accounts: users, memberships, email links, invites, sign-up, the mailer (src/users/user-services.ts). */
  readonly users: UserServices;
  /** Redemption codes: batches made by the operator, redeemed by customers (src/codes/). */
  readonly codes: Codes;
  close(): Promise<void>;
}

export interface ServerServices extends Services {
  readonly rateLimiter: RateLimiter;
  /** A key's tokens per minute and requests in flight (Redis when configured, like the rate limiter). */
  readonly keyLimits: KeyLimits;
  /** The shared Redis connection when cache.url is redis:// (readiness checks it). */
  readonly redis: RedisConnection | undefined;
  readonly metrics: Metrics;
  /** Upstream failures logged (secrets redacted) and counted, upstream latency observed (pipeline/upstream-observer.ts). */
  readonly upstreamObserver: UpstreamObserver;
  readonly requestLog: BatchedInserter<RequestLogEntry>;
  readonly usageRecords: UsageRecords;
  /** Upstreams by provider name (enabled providers with a chat adapter). */
  readonly upstreams: Map<string, Upstream>;
  /** Gateway-side prompt-cache accounting for models with capabilities.prompt_cache. */
  readonly prefixTracker: PrefixTracker;
  /** Output items returned in the last minutes, per account, for Responses `item_reference`. */
  readonly returnedItems: ReturnedItems;
  /** Routes ("provider:model") an upstream asked us to leave alone, until the time given (ms). */
  readonly routeCooldowns: Map<string, number>;
  readonly files: Files;
  readonly generations: Generations;
  /** Async jobs (video, video upscale, music): created by the routes, advanced by a JobRunner. */
  readonly jobs: JobStore;
  /** This process as the owner of its requests' holds (registered and beating while it serves). */
  readonly holdOwner: HoldOwner;
  /** Settles and releases of finished requests, retried in the background while the database is unreachable. */
  readonly settles: PendingSettles;
  /** Traces (observability.otlp): the no-op unless configured, so a request allocates nothing for them by default. */
  readonly tracer: Tracer;
  /** OpenID Connect logins of cabinet.oidc; their pending logins live in the cache (shared through Redis). */
  readonly oidcLogins: OidcLogins;
  /** Customers' payments and their refunds (src/payments/); undefined without `payments` in the config. */
  readonly payments: PaymentServices | undefined;
}

/** Settles kept for retry during a database outage at most (beyond: see pending-settles.ts). */
const pendingSettlesCap = 10_000;
/** How long a graceful stop keeps retrying unwritten settles and records when the database is down. */
export const stopFlushDeadlineMs = 10_000;

/** `backgroundCheckpoints`: a long-lived process checkpoints SQLite's WAL on a connection of its own, off the request path. */
/** `createDatabase`: this process migrates, so it may create a missing SQLite file (src/db/connect.ts). */
/** `now`: the clock every service reads (default Date.now; tests pass one they move forward). */
export function openServices(config: Config, options: { logger?: Logger; backgroundCheckpoints?: boolean; createDatabase?: boolean; now?: () => number } = {}): Services {
  const now = options.now ?? Date.now;
  const backgroundCheckpoints = options.backgroundCheckpoints === true && config.database.client === 'sqlite';
  const logger = options.logger ?? createLogger(config.log.level, 'stderr');
  // The processes that own the data (serve, worker, migrate) tighten an older install's modes.
  if (options.createDatabase) tightenDataPermissions({ dataDir: config.dataDir, sqliteFilename: config.database.filename }, logger);
  const db = connectDatabase(config.database, { backgroundCheckpoints, create: options.createDatabase ?? false, dataDir: config.dataDir });
  const checkpointer = backgroundCheckpoints ? new SqliteCheckpointer(config.database.filename!, logger) : undefined;
  const apiKeys = new ApiKeys(db, config.keys.prefix, now);
  const blobs = openBlobStore(config.storage.blobs);
  const accounts = new Accounts(db, now);
  const ledger = new Ledger(db, now);
  const users = openUserServices(db, config, { accounts, ledger }, now);
  return {
    config,
    db,
    logger,
    accounts,
    apiKeys,
    ledger,
    catalog: new Catalog(config),
    now,
    blobs,
    cabinet: openCabinet(db, apiKeys, config.cabinet, now),
    users,
    codes: new Codes(db, ledger, now),
    async close() {
      await apiKeys.flushLastUsed().catch(() => undefined);
      users.mailer?.close();
      await blobs.close().catch(() => undefined);
      await db.destroy();
      await checkpointer?.close();
    },
  };
}

/** Stored files over a process's database and its one blob store (the CLI's `files` commands use it alone). */
export function openFiles(services: Services): Files {
  return new Files(services.db, services.blobs, services.config.storage.tempTtlMs, services.now);
}

/** The job store over a process's database (the CLI's `jobs` commands use it alone). */
export function openJobStore(services: Services, generations = new Generations(services.db, services.now)): JobStore {
  const { config } = services;
  return new JobStore({ db: services.db, generations, deadlineMs: config.jobs.deadlineMs, leaseMs: config.jobs.leaseMs, now: services.now });
}

/**
 * What ends a job outside a serving process (the CLI's `jobs cancel`): the store, and the
 * releases it writes within the job's transaction (nothing is kept for retry there).
 */
export function openJobEnds(services: Services): JobEndServices {
  return { jobs: openJobStore(services), settles: new PendingSettles(services.ledger, services.logger, { cap: 0 }), config: services.config, now: services.now };
}

/** Everything `serve` needs: the base services plus the rate limiter (Redis when configured), metrics and the request log. */
export async function openServerServices(
  config: Config,
  options: {
    logger?: Logger;
    processMetrics?: boolean;
    rateLimiter?: RateLimiter;
    now?: () => number;
    /** A worker of `serve --workers N`: without Redis, the limits and caches live in the primary (src/process/cluster-state.ts). */
    cluster?: ClusterClient;
  } = {},
): Promise<ServerServices> {
  // A serving process (serve, worker, tests) migrates at start, so it may create the database.
  const base = openServices(config, { logger: options.logger ?? createLogger(config.log.level, 'stdout'), backgroundCheckpoints: true, createDatabase: true, now: options.now });
  // Redis and the simulator are loaded only by processes that use them (a few MB of heap each).
  const { timeoutMs, onUnavailable } = config.cache;
  const redis = config.cache.url.startsWith('redis')
    ? await openRedisConnection(config.cache.url, {
        timeoutMs,
        logger: base.logger,
        onUnreachableAtStart: (reason) =>
          base.logger.warn(
            { cache: redactRedisUrlOf(config.cache.url), reason, on_unavailable: onUnavailable },
            `Redis at ${redactRedisUrlOf(config.cache.url)} is unreachable (${reason}); starting with cache.on_unavailable=${onUnavailable} (${
              onUnavailable === 'open' ? 'each process limits keys on its own' : 'keyed requests get 503'
            }) and reconnecting in the background`,
          ),
      })
    : undefined;
  // With Redis, workers share through it like separate instances; without, through the primary.
  const cluster = redis ? undefined : options.cluster;
  let rateLimiter: RateLimiter;
  if (options.rateLimiter) rateLimiter = options.rateLimiter;
  else if (redis) rateLimiter = new RedisRateLimiterWithFallback(new RedisRateLimiter(redis.client), redis, onUnavailable);
  else rateLimiter = cluster?.rateLimiter() ?? new MemoryRateLimiter();
  let keyLimitStore: KeyLimitStore;
  if (redis) keyLimitStore = new RedisKeyLimitStoreWithFallback(new RedisKeyLimitStore(redis.client, base.now, undefined, (command) => redis.run(() => command())), redis, onUnavailable);
  else keyLimitStore = cluster?.keyLimitStore() ?? new MemoryKeyLimitStore();
  const keyLimits = new KeyLimits(
    keyLimitStore,
    base.now,
    (error, keyId) => base.logger.warn({ err: error, key_id: keyId }, "a call's tokens could not be counted against its key's tokens per minute"),
  );
  // The built-in simulator runs in this process, on a loopback port, when a `sim` provider exists.
  const simulator = needsSimulator(config.providers) || paymentsNeedSimulator(config) ? await (await import('./sim/server.js')).startSimulator({ host: '127.0.0.1', port: 0 }) : undefined;
  const upstreams = createUpstreams(config.providers, simulator?.url);
  const keyv = <Value>(namespace: string, maxEntries?: number): Promise<Keyv<Value>> =>
    cluster ? Promise.resolve(new Keyv<Value>({ store: cluster.keyvStore(namespace), namespace })) : createKeyv<Value>(config.cache.url, namespace, { redisClient: redis?.client, maxEntries });
  const prefixStore = await keyv<number>('prefix');
  // Items (a message, a reasoning item with its signature: a few KB) are larger than prefix
  // marks: fewer are kept in memory, the oldest going first (about 10k items in 5 minutes).
  const returnedItemsStore = await keyv<unknown>('returned-items', 10_000);
  const oidcLogins = new OidcLogins(config.cabinet.oidc, await keyv('oidc-login', 10_000), base.now);
  const metrics = new Metrics({ processMetrics: options.processMetrics });
  metrics.watchBacklog(() => readBacklog(base.db), base.now, (error) => base.logger.warn({ err: error }, 'the backlog metrics could not be read at this scrape'));
  const upstreamObserver = new UpstreamObserver(metrics, base.logger, { secrets: [...upstreams.values()].map((upstream) => upstream.apiKey), models: base.catalog.models, now: base.now });
  const recordOptions = (table: string) => {
    metrics.recordsDropped.inc({ table }, 0); // the series exists (at 0) before anything is lost
    return {
      intervalMs: 250,
      batchSize: 500,
      maxQueued: 20_000,
      onDropped: (count: number) => metrics.recordsDropped.inc({ table }, count),
    };
  };
  const requestLog = new BatchedInserter<RequestLogEntry>(base.db, 'request_log', requestLogColumns, base.logger, { ...recordOptions('request_log'), uniqueBy: 'request_id' });
  const generations = new Generations(base.db, base.now);
  const jobs = openJobStore(base, generations);
  // Batched usage records are those of uncharged requests (a charged one is written by its
  // settle, on SQLite into the outbox): one per request, so request_id makes a retried batch
  // idempotent as for the log.
  const usageRecords = new UsageRecords(
    new BatchedInserter<UsageRecord>(base.db, 'usage_records', usageRecordColumns, base.logger, { ...recordOptions('usage_records'), uniqueBy: 'request_id', defaults: usageRecordDefaults }),
    new UsageOutbox(base.db, base.logger),
  );
  const settles = new PendingSettles(base.ledger, base.logger, {
    cap: pendingSettlesCap,
    onSize: (size) => metrics.pendingSettles.set(size),
    onDropped: (count) => metrics.settlesDropped.inc(count),
  });
  const blobStore = blobStoreIdentity(config.storage.blobs, config.instance.hostname);
  const tracer = await openTracer(config, base.logger);
  const payments = await openPayments(config, {
    db: base.db,
    ledger: base.ledger,
    logger: base.logger,
    now: base.now,
    simulatorUrl: simulator?.url,
    hooks: referralHooks(base.db, base.ledger, config.referral, base.logger, base.now),
  });
  return {
    ...base,
    rateLimiter,
    keyLimits,
    redis,
    metrics,
    upstreamObserver,
    requestLog,
    usageRecords,
    upstreams,
    prefixTracker: new PrefixTracker(prefixStore, redis ? (work) => redis.run(() => work()) : undefined),
    returnedItems: new ReturnedItems(returnedItemsStore, redis ? (work) => redis.run(() => work()) : undefined),
    routeCooldowns: new Map(),
    files: openFiles(base),
    generations,
    jobs,
    holdOwner: new HoldOwner(base.db, base.ledger, base.logger, {
      heartbeatMs: config.holds.heartbeatMs,
      goneAfterMs: config.holds.ownerGoneAfterMs,
      now: base.now,
      hostname: config.instance.hostname,
      blobStore,
      admit: (others) => admitInstance({ hostname: config.instance.hostname, blobStore }, others, base.logger),
    }),
    settles,
    tracer,
    oidcLogins,
    payments,
    async close() {
      await payments?.payments.close();
      await settles.close(stopFlushDeadlineMs);
      await Promise.all([requestLog.close(stopFlushDeadlineMs), usageRecords.close(stopFlushDeadlineMs), tracer.close()]);
      await Promise.all([...upstreams.values()].map((upstream) => upstream.dispatcher.close().catch(() => undefined)));
      await simulator?.close();
      await rateLimiter.close();
      await keyLimits.close();
      await redis?.close(); // the prefix store's client too
      await base.close();
    },
  };
}
