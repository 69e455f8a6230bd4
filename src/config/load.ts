// Loads, validates and freezes the configuration. This module is the ONLY reader of
// process.env in the program: everything else receives the frozen Config it returns.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Document, LineCounter } from 'yaml';
import type { z } from 'zod';
import { DomainError } from '../errors/domain-error.js';
import { cachedParse, keepParse } from './parsed-config-cache.js';
import { configSchema, logLevels, vendorSettingNames, type ConfigFile, type ModelConfig, type ProviderKind } from './schema.js';
import { parseDuration, parseSize } from './units.js';
import { isAddressOrBlock } from '../util/ip-list.js';
import { parseRub } from '../util/money.js';

/** The folder holding bin/, config/ and package.json. Relative paths in the config resolve here. */
// The yaml parser is loaded when a file is parsed: a CLI run whose file's data is cached
// (parsed-config-cache.ts) never needs it, and loading it is a part of every command's start.
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

export const installRoot = findInstallRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Walks up from this file (src/config or dist/src/config) to the folder with package.json. */
function findInstallRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

export interface ProviderConfig {
  readonly name: string;
  readonly kind: ProviderKind;
  readonly baseUrl: string | undefined;
  readonly apiKeyEnv: string | undefined;
  /** The secret read from the environment; never logged, never printed. */
  readonly apiKey: string | undefined;
  /** False when api_key_env (or a vendor's …_env setting) names a variable that is not set: its routes are disabled. */
  readonly enabled: boolean;
  readonly timeoutMs: number;
  /** The vendor-specific settings (Vendor.providerSettings) as written. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The values of its `…_env` settings, by name without `_env`; never logged, never printed. */
  readonly secrets: Readonly<Record<string, string | undefined>>;
}

export interface Config {
  readonly configPath: string | undefined;
  readonly server: {
    readonly host: string;
    readonly port: number;
    readonly jsonLimitBytes: number;
    readonly streamKeepAliveMs: number;
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    readonly maxConnections: number;
    readonly drainTimeoutMs: number;
    /** server.workers with "auto" resolved to this machine's cores (serve --workers overrides it). */
    readonly workers: number;
    /** server.trusted_proxies, or GATEWAY_TRUSTED_PROXIES (src/http/client-address.ts). */
    readonly trustedProxies: readonly string[];
  };
  readonly dataDir: string;
  /**
   * The machine this process says it runs on (GATEWAY_INSTANCE_HOSTNAME, else the OS host name):
   * recorded with its heartbeat in `instances`, where instances on different machines sharing
   * one database are told apart (src/storage/shared-storage.ts) and runners name themselves.
   */
  readonly instance: { readonly hostname: string };
  readonly database: { readonly client: 'sqlite' | 'postgres'; readonly url: string; readonly filename?: string; readonly poolMax: number };
  readonly cache: { readonly url: string; readonly timeoutMs: number; readonly onUnavailable: 'open' | 'closed' };
  readonly storage: {
    readonly dir: string;
    readonly tempTtlMs: number;
    readonly permanentQuotaBytes: number;
    readonly blobs: BlobStoreConfig;
    /** storage.blobs_next: where `files migrate-store` copies to; absent when not configured. */
    readonly blobsNext?: BlobStoreConfig;
  };
  readonly keys: { readonly prefix: string };
  readonly rateLimit: {
    readonly requestsPerMinute: number;
    /**
     * Tests only (GATEWAY_TEST_FROZEN_RATE_CLOCK=1): the rate limiter's clock stands still in a
     * `serve --workers N` primary, so "61 calls within one second" does not depend on how fast
     * the machine is. Never set in production: no key's allowance would ever refill.
     */
    readonly frozenClock?: boolean;
  };
  readonly currency: { readonly usdRub: string };
  readonly holds: { readonly ttlMs: number; readonly sweepIntervalMs: number; readonly heartbeatMs: number; readonly ownerGoneAfterMs: number };
  readonly webhooks: { readonly allowLoopback: boolean; readonly allowPrivate: boolean; readonly retryDelaysMs: readonly number[]; readonly timeoutMs: number };
  readonly jobs: { readonly tickMs: number; readonly leaseMs: number; readonly deadlineMs: number; readonly concurrency: number };
  readonly defaults: { readonly videoModel?: string; readonly videoUpscaleModel?: string; readonly musicModel?: string };
  readonly log: { readonly level: string };
  readonly cabinet: {
    /** Origin of the links `gateway cabinet link` prints, without a trailing slash. */
    readonly publicUrl: string;
    /** Was cabinet.public_url set? If not, `cabinet link` prefers the address a running serve recorded to the default above. */
    readonly publicUrlConfigured: boolean;
    readonly linkTtlMs: number;
    readonly sessionIdleMs: number;
    readonly sessionMaxMs: number;
    readonly adminSessionMaxMs: number;
    readonly loginAttemptsPerMinute: number;
    readonly loginAttemptsPerEmailPerMinute: number;
    /** Redemption code attempts per account per minute, and as many per client address (cabinet.code_attempts_per_minute). */
    readonly codeAttemptsPerMinute: number;
    readonly signup: 'closed' | 'invite' | 'open';
    /** cabinet.signup_bonus in units of 0.0001 RUB; 0n when unset. */
    readonly signupBonusUnits: bigint;
    readonly emailLinkTtlMs: number;
    readonly oidc: readonly OidcProviderConfig[];
    readonly telegramLogin: TelegramLoginConfig | undefined;
  };
  /** email: absent when not configured (email sign-up is then unavailable). */
  readonly email: EmailConfig | undefined;
  /** The Telegram bot (src/bot/, docs/bot.md); undefined without `bot` in the config. */
  readonly bot: BotConfig | undefined;
  /** payments: absent when not configured (only the operator adds money). */
  readonly payments: PaymentsConfig | undefined;
  /** referral: absent when referrals earn nothing. */
  readonly referral: ReferralConfig | undefined;
  readonly lowBalance: { readonly defaultThresholdUnits: bigint | undefined; readonly checkIntervalMs: number };
  readonly metrics: MetricsConfig;
  readonly providers: Readonly<Record<string, ProviderConfig>>;
  readonly models: readonly ModelConfig[];
  /** observability.otlp: absent when traces are off (the default). */
  readonly observability: { readonly otlp: OtlpConfig | undefined };
}

/** One OpenID Connect provider of cabinet.oidc (src/users/oidc-login.ts). */
export interface OidcProviderConfig {
  readonly name: string;
  readonly label: string;
  readonly issuer: string;
  readonly clientId: string;
  /** Read from client_secret_env; undefined when that variable is unset (serve refuses to start). */
  readonly clientSecret: string | undefined;
  readonly clientSecretEnv: string;
}

/** bot (src/bot/, docs/bot.md). */
export interface BotConfig {
  readonly username: string;
  /** Read from token_env; undefined when that variable is unset (the bot refuses to start). */
  readonly token: string | undefined;
  readonly tokenEnv: string;
  /** Without a trailing slash. */
  readonly apiUrl: string;
  readonly mode: 'polling' | 'webhook';
  readonly webhook:
    | { readonly publicUrl: string; readonly path: string; readonly host: string; readonly port: number; readonly secretToken: string | undefined; readonly secretTokenEnv: string }
    | undefined;
  readonly defaultModel: string;
  readonly maxTurns: number;
  readonly maxTokens: number;
  readonly showPrice: boolean;
  readonly topupContact: string | undefined;
  readonly editIntervalMs: number;
  readonly lockHeartbeatMs: number;
  readonly downloadLinkTtlMs: number;
}

/** cabinet.telegram_login (src/users/telegram-login.ts). */
export interface TelegramLoginConfig {
  readonly botUsername: string;
  /** Read from bot_token_env; undefined when that variable is unset (serve refuses to start). */
  readonly botToken: string | undefined;
  readonly botTokenEnv: string;
  readonly maxAgeMs: number;
}

/** payments (src/payments/, docs/payments.md). Amounts in units of 0.0001 RUB, percentages in basis points (1% = 100). */
export interface PaymentsConfig {
  readonly minUnits: bigint;
  readonly maxUnits: bigint;
  readonly presetsUnits: readonly bigint[];
  /** Highest `from` first. */
  readonly bonusTiers: readonly { readonly fromUnits: bigint; readonly basisPoints: bigint }[];
  readonly sweepAfterMs: number;
  readonly yookassa: YookassaConfig | undefined;
  readonly stripe: StripeConfig | undefined;
}

export interface YookassaConfig {
  readonly shopId: string;
  /** Read from secret_key_env; undefined when unset (serve refuses to start, unless api_url is sim). */
  readonly secretKey: string | undefined;
  readonly secretKeyEnv: string;
  /** The API base without a trailing slash, or `sim`. */
  readonly apiUrl: string;
  readonly vatCode: number;
  readonly notificationAddresses: readonly string[] | undefined;
}

export interface StripeConfig {
  readonly secretKey: string | undefined;
  readonly secretKeyEnv: string;
  readonly webhookSecret: string | undefined;
  readonly webhookSecretEnv: string;
  readonly currency: string;
  /** RUB per unit of currency as written in the config ("92.50"); "1" for rub. */
  readonly rubRate: string;
  /** The API base without a trailing slash, or `sim`. */
  readonly apiUrl: string;
}

export interface ReferralConfig {
  /** referral.percent in basis points (10% = 1000). */
  readonly basisPoints: bigint;
  readonly months: number;
}

/** "10" → 1000n, "2.5" → 250n: a percentage in basis points. */
export function basisPointsOf(percent: string): bigint {
  const [whole, fraction = ''] = percent.split('.');
  return BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
}

/** email (src/email/mailer.ts). */
export interface EmailConfig {
  /** Read from smtp_url_env; undefined when that variable is unset (serve refuses to start). A secret: never logged. */
  readonly smtpUrl: string | undefined;
  readonly smtpUrlEnv: string;
  readonly from: string;
}

/** Where and how traces are exported (src/observability/otlp-tracer.ts). */
export interface OtlpConfig {
  /** The full address spans are posted to (…/v1/traces). */
  readonly tracesUrl: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  /** Read from headers_env; secrets (an API key), never logged. */
  readonly headers: Readonly<Record<string, string>>;
  /** Why headers_env gave no headers (unset or unreadable), reported when the exporter starts. */
  readonly headersProblem: string | undefined;
  readonly serviceName: string;
  readonly captureContent: boolean;
  readonly sampleRatio: number;
}

/** Who may read GET /metrics (src/http/metrics-access.ts). */
export interface MetricsConfig {
  readonly tokenEnv: string | undefined;
  /** The Bearer token read from tokenEnv; never logged, never printed. */
  readonly token: string | undefined;
  /**
   * Why the token named by token_env cannot be used (unset, or too short to resist guessing):
   * `serve` refuses to start with it, rather than serve /metrics without the token. Other
   * commands, which serve nothing, run without it.
   */
  readonly tokenProblem: string | undefined;
  /** metrics.listen: /metrics is served there alone, and no longer on the API port. */
  readonly listen: { readonly host: string; readonly port: number } | undefined;
}

/** A metrics token shorter than this is refused (a guessable secret on a scrapeable port). */
export const minimumMetricsTokenLength = 16;

/** Where file bytes live: storage.blobs with its secrets read from the environment (see schema.ts). */
export type BlobStoreConfig =
  | { readonly kind: 'local'; readonly dir: string; readonly shared: boolean }
  | {
      readonly kind: 's3';
      readonly endpoint: string | undefined;
      readonly region: string;
      readonly bucket: string;
      readonly prefix: string;
      readonly forcePathStyle: boolean;
      /** Both set, or neither (then the AWS SDK's own credential chain applies). */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
      /**
       * Why the credentials named in the file could not be read (an unset variable), reported
       * when the store is opened: commands that never touch files keep working without them.
       */
      readonly credentialsProblem: string | undefined;
      readonly partSizeBytes: number;
    };

export class ConfigError extends DomainError {
  override readonly catalogCode = 'config_invalid';
  override readonly seenIn = 'cli';

  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`invalid configuration in ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** server.workers / --workers: "auto" is one worker per core this process may use. */
export function resolveWorkers(workers: number | 'auto'): number {
  return workers === 'auto' ? availableParallelism() : workers;
}

export interface LoadOptions {
  /** Explicit --config path; else GATEWAY_CONFIG; else config/gateway.yaml, else the example. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Parsed object instead of a file (tests). */
  raw?: unknown;
  /** Where the file's parsed data is kept between runs (the CLI's cache directory; parsed-config-cache.ts); without it the file is parsed every time. */
  cacheDir?: string;
}

export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEWAY_CONFIG) return path.resolve(env.GATEWAY_CONFIG);
  const own = path.join(installRoot, 'config', 'gateway.yaml');
  return existsSync(own) ? own : path.join(installRoot, 'config', 'gateway.example.yaml');
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  let raw: unknown = options.raw;
  let source = 'config object';
  let locate: (p: PropertyKey[], key?: string) => string = () => '';
  let configPath: string | undefined;
  if (raw === undefined) {
    configPath = options.configPath ? path.resolve(options.configPath) : defaultConfigPath(env);
    source = configPath;
    let text: string;
    try {
      text = readFileSync(configPath, 'utf8');
    } catch (error) {
      throw new ConfigError(source, [`cannot read the file: ${(error as Error).message}`]);
    }
    let parsedText: { document: Document.Parsed; lineCounter: LineCounter } | undefined;
    // Parsed when the data is not cached, and for a message's line number (rare: a cached entry's text did parse).
    const parse = () => {
      if (parsedText) return parsedText;
      const { LineCounter, parseDocument } = yaml();
      const lineCounter = new LineCounter();
      return (parsedText = { document: parseDocument(text, { lineCounter, prettyErrors: false }), lineCounter });
    };
    const cached = options.cacheDir === undefined ? undefined : cachedParse(options.cacheDir, configPath, text);
    if (cached) raw = cached.raw;
    else {
      const { document, lineCounter } = parse();
      if (document.errors.length > 0) {
        throw new ConfigError(
          source,
          document.errors.map((e) => `line ${lineCounter.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`),
        );
      }
      raw = document.toJS() ?? {};
      if (options.cacheDir !== undefined) keepParse(options.cacheDir, configPath, text, raw);
    }
    locate = (issuePath, key) => {
      const { document, lineCounter } = parse();
      const { isMap, isNode, isScalar } = yaml();
      // An unknown key is located at the key itself, not at the map holding it.
      if (key !== undefined) {
        const map = document.getIn(issuePath as (string | number)[], true);
        if (isMap(map)) {
          const pair = map.items.find((item) => isScalar(item.key) && item.key.value === key);
          if (pair && isNode(pair.key) && pair.key.range) return ` (line ${lineCounter.linePos(pair.key.range[0]).line})`;
        }
      }
      // Walk up the path until a node exists (a missing key has no node of its own).
      for (let depth = issuePath.length; depth >= 0; depth--) {
        const node = document.getIn(issuePath.slice(0, depth) as (string | number)[], true);
        if (isNode(node) && node.range) return ` (line ${lineCounter.linePos(node.range[0]).line})`;
      }
      return '';
    };
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(source, parsed.error.issues.map((issue) => describeIssue(issue, locate)));
  }
  const file = parsed.data;
  const problems = crossCheck(file);
  if (problems.length > 0) {
    throw new ConfigError(source, problems.map((p) => `${p.path.join('.')}: ${p.message}${locate(p.path)}`));
  }
  return deepFreeze(build(file, env, configPath));
}

function describeIssue(issue: z.core.$ZodIssue, locate: (p: PropertyKey[], key?: string) => string): string {
  const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') {
    return `${where}: unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}${locate(issue.path, issue.keys[0])}`;
  }
  return `${where}: ${issue.message}${locate(issue.path)}`;
}

/** Rules the schema cannot express: references between sections and uniqueness. */
function crossCheck(file: ConfigFile): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  const requestTimeoutMs = parseDuration(file.server.request_timeout);
  if (requestTimeoutMs > 0 && parseDuration(file.server.headers_timeout) > requestTimeoutMs) {
    problems.push({ path: ['server', 'headers_timeout'], message: `must not exceed server.request_timeout (${file.server.request_timeout})` });
  }
  const names = new Map<string, string>();
  file.models.forEach((model, index) => {
    for (const [key, label] of [[model.id, 'id'], ...model.aliases.map((a) => [a, 'alias'])] as const) {
      const owner = names.get(key);
      if (owner !== undefined) {
        problems.push({ path: ['models', index, label === 'id' ? 'id' : 'aliases'], message: `"${key}" is already used by model ${owner}` });
      } else names.set(key, model.id);
    }
    model.fallback_aliases.forEach((alias, aliasIndex) => {
      if (file.models.some((other) => other.id === alias)) {
        problems.push({ path: ['models', index, 'fallback_aliases', aliasIndex], message: `"${alias}" is the id of a model; a fallback alias can only stand in for an alias` });
      }
    });
    const routes = model.routes ?? (model.route ? [model.route] : []);
    routes.forEach((route, routeIndex) => {
      if (!file.providers[route.provider]) {
        problems.push({
          path: ['models', index, model.routes ? 'routes' : 'route', ...(model.routes ? [routeIndex] : []), 'provider'],
          message: `unknown provider "${route.provider}" (known: ${Object.keys(file.providers).join(', ') || 'none'})`,
        });
      }
    });
  });
  const metricsPort = file.metrics.listen === undefined ? undefined : Number(file.metrics.listen.slice(file.metrics.listen.lastIndexOf(':') + 1));
  const payments = file.payments;
  if (payments?.stripe && payments.stripe.currency !== 'rub' && payments.stripe.rub_rate === undefined) {
    problems.push({ path: ['payments', 'stripe', 'rub_rate'], message: `required for currency "${payments.stripe.currency}": the RUB credited per 1 ${payments.stripe.currency.toUpperCase()}, such as "92.50"` });
  }
  if (payments && parseRub(payments.min_rub) > parseRub(payments.max_rub)) problems.push({ path: ['payments', 'min_rub'], message: `must not exceed payments.max_rub (${payments.max_rub})` });
  if (payments && parseRub(payments.min_rub) <= 0n) problems.push({ path: ['payments', 'min_rub'], message: 'must be more than 0' });
  if (metricsPort !== undefined && metricsPort > 65535) problems.push({ path: ['metrics', 'listen'], message: `expected a port number 0-65535, got ${metricsPort}` });
  // A live process beats every interval; fewer than 3 intervals before it counts as gone would
  // let one slow beat (a busy database, a GC pause) get its holds released.
  if (parseDuration(file.holds.owner_gone_after) < 3 * parseDuration(file.holds.heartbeat_interval)) {
    problems.push({ path: ['holds', 'owner_gone_after'], message: `must be at least 3 × holds.heartbeat_interval (${file.holds.heartbeat_interval})` });
  }
  return problems;
}

function build(file: ConfigFile, env: NodeJS.ProcessEnv, configPath: string | undefined): Config {
  const resolve = (p: string) => path.resolve(installRoot, p);
  const dataDir = resolve(env.GATEWAY_DATA_DIR || file.data_dir);
  let databaseUrl = env.GATEWAY_DATABASE_URL || file.database.url;
  if (!databaseUrl || (env.GATEWAY_DATA_DIR && !env.GATEWAY_DATABASE_URL && databaseUrl.startsWith('sqlite:'))) {
    // GATEWAY_DATA_DIR moves the embedded database along with the rest of the data.
    databaseUrl = `sqlite:${path.join(dataDir, 'gateway.db')}`;
  }
  const isSqlite = databaseUrl.startsWith('sqlite:');
  const filename = isSqlite ? resolve(databaseUrl.slice('sqlite:'.length)) : undefined;
  const envProblems: string[] = [];
  let port = file.server.port;
  if (env.GATEWAY_PORT !== undefined && env.GATEWAY_PORT !== '') {
    port = /^\d{1,5}$/.test(env.GATEWAY_PORT) ? Number(env.GATEWAY_PORT) : -1;
    if (port < 0 || port > 65535) envProblems.push(`GATEWAY_PORT: expected a port number 0-65535, got "${env.GATEWAY_PORT}"`);
  }
  const cacheUrl = env.GATEWAY_CACHE_URL || file.cache.url;
  if (!/^(memory|rediss?:\/\/.+)$/.test(cacheUrl)) envProblems.push(`GATEWAY_CACHE_URL: expected "memory" or "redis://host:port", got "${cacheUrl}"`);
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) envProblems.push(`GATEWAY_DATABASE_URL: expected "sqlite:PATH" or "postgres://…"`);
  const instanceHostname = (env.GATEWAY_INSTANCE_HOSTNAME ?? '').trim() || hostname();
  if (instanceHostname.length > 255) envProblems.push(`GATEWAY_INSTANCE_HOSTNAME: at most 255 characters, got ${instanceHostname.length}`);
  const logLevel = env.GATEWAY_LOG_LEVEL || file.log.level;
  if (!logLevels.includes(logLevel as (typeof logLevels)[number])) envProblems.push(`GATEWAY_LOG_LEVEL: expected one of ${logLevels.join(', ')}, got "${logLevel}"`);
  // The compose stack gives its load balancer's fixed address here (deploy/compose.yaml), so that
  // deploy/gateway.yaml, reused as is on other machines, trusts no proxy there.
  const trustedFromEnv = env.GATEWAY_TRUSTED_PROXIES ? env.GATEWAY_TRUSTED_PROXIES.split(',').map((entry) => entry.trim()) : undefined;
  for (const entry of trustedFromEnv ?? []) {
    if (!isAddressOrBlock(entry)) envProblems.push(`GATEWAY_TRUSTED_PROXIES: expected IPv4/IPv6 addresses or CIDR blocks separated by commas, got "${entry}"`);
  }
  const trustedProxies = trustedFromEnv ?? file.server.trusted_proxies;
  if (envProblems.length > 0) throw new ConfigError('the environment', envProblems);
  const storageDir = env.GATEWAY_DATA_DIR || !file.storage.dir ? path.join(dataDir, 'files') : resolve(file.storage.dir);
  const providers: Record<string, ProviderConfig> = {};
  for (const [name, provider] of Object.entries(file.providers)) {
    const apiKey = provider.api_key_env ? env[provider.api_key_env] || undefined : undefined;
    const vendorSettings = vendorSettingsOf(provider, env);
    providers[name] = {
      name,
      kind: provider.kind,
      baseUrl: provider.base_url,
      apiKeyEnv: provider.api_key_env,
      apiKey,
      // Every variable the provider names must be set (api_key_env, and a vendor's own …_env
      // settings such as Bedrock's access keys): listing a vendor you have no keys for is harmless.
      enabled: (provider.api_key_env === undefined || apiKey !== undefined) && Object.values(vendorSettings.secrets).every((secret) => secret !== undefined),
      timeoutMs: parseDuration(provider.timeout ?? '10m'),
      ...vendorSettings,
    };
  }
  return {
    configPath,
    server: {
      host: env.GATEWAY_HOST || file.server.host,
      port,
      jsonLimitBytes: parseSize(file.server.json_limit),
      streamKeepAliveMs: parseDuration(file.server.stream_keepalive),
      headersTimeoutMs: parseDuration(file.server.headers_timeout),
      requestTimeoutMs: parseDuration(file.server.request_timeout),
      keepAliveTimeoutMs: parseDuration(file.server.keep_alive_timeout),
      maxConnections: file.server.max_connections,
      drainTimeoutMs: parseDuration(file.server.drain_timeout),
      workers: resolveWorkers(file.server.workers),
      trustedProxies,
    },
    dataDir,
    instance: { hostname: instanceHostname },
    database: { client: isSqlite ? 'sqlite' : 'postgres', url: databaseUrl, filename, poolMax: file.database.pool_max },
    cache: { url: cacheUrl, timeoutMs: parseDuration(file.cache.timeout), onUnavailable: file.cache.on_unavailable },
    storage: {
      dir: storageDir,
      tempTtlMs: parseDuration(file.storage.temp_ttl),
      permanentQuotaBytes: parseSize(file.storage.permanent_quota),
      blobs: blobStoreConfig(file.storage.blobs, storageDir, env),
      ...(file.storage.blobs_next === undefined ? {} : { blobsNext: blobStoreConfig(file.storage.blobs_next, storageDir, env, 'storage.blobs_next') }),
    },
    keys: { prefix: file.keys.prefix },
    rateLimit: { requestsPerMinute: file.rate_limit.requests_per_minute, ...(env.GATEWAY_TEST_FROZEN_RATE_CLOCK === '1' ? { frozenClock: true } : {}) },
    currency: { usdRub: file.currency.usd_rub },
    holds: {
      ttlMs: parseDuration(file.holds.ttl),
      sweepIntervalMs: parseDuration(file.holds.sweep_interval),
      heartbeatMs: parseDuration(file.holds.heartbeat_interval),
      ownerGoneAfterMs: parseDuration(file.holds.owner_gone_after),
    },
    webhooks: {
      allowLoopback: file.webhooks.allow_loopback,
      allowPrivate: file.webhooks.allow_private,
      retryDelaysMs: file.webhooks.retry_delays.map(parseDuration),
      timeoutMs: parseDuration(file.webhooks.timeout),
    },
    jobs: {
      tickMs: parseDuration(file.jobs.tick),
      leaseMs: parseDuration(file.jobs.lease),
      deadlineMs: parseDuration(file.jobs.deadline),
      concurrency: file.jobs.concurrency,
    },
    defaults: { videoModel: file.defaults.video_model, videoUpscaleModel: file.defaults.video_upscale_model, musicModel: file.defaults.music_model },
    log: { level: logLevel },
    cabinet: {
      publicUrl: (file.cabinet.public_url ?? defaultPublicUrl(env.GATEWAY_HOST || file.server.host, port)).replace(/\/$/, ''),
      publicUrlConfigured: file.cabinet.public_url !== undefined,
      linkTtlMs: parseDuration(file.cabinet.link_ttl),
      sessionIdleMs: parseDuration(file.cabinet.session_idle),
      sessionMaxMs: parseDuration(file.cabinet.session_max),
      adminSessionMaxMs: parseDuration(file.cabinet.admin_session_max),
      loginAttemptsPerMinute: file.cabinet.login_attempts_per_minute,
      loginAttemptsPerEmailPerMinute: file.cabinet.login_attempts_per_email_per_minute,
      codeAttemptsPerMinute: file.cabinet.code_attempts_per_minute,
      signup: file.cabinet.signup,
      signupBonusUnits: file.cabinet.signup_bonus === undefined ? 0n : parseRub(file.cabinet.signup_bonus),
      emailLinkTtlMs: parseDuration(file.cabinet.email_link_ttl),
      oidc: file.cabinet.oidc.map((provider) => ({
        name: provider.name,
        label: provider.label ?? provider.name,
        issuer: provider.issuer,
        clientId: provider.client_id,
        clientSecret: env[provider.client_secret_env] || undefined,
        clientSecretEnv: provider.client_secret_env,
      })),
      telegramLogin:
        file.cabinet.telegram_login === undefined
          ? undefined
          : {
              botUsername: file.cabinet.telegram_login.bot_username,
              botToken: env[file.cabinet.telegram_login.bot_token_env] || undefined,
              botTokenEnv: file.cabinet.telegram_login.bot_token_env,
              maxAgeMs: parseDuration(file.cabinet.telegram_login.max_age),
            },
    },
    metrics: metricsConfig(file.metrics, env),
    bot: file.bot === undefined ? undefined : botConfig(file.bot, env),
    email: file.email === undefined ? undefined : { smtpUrl: env[file.email.smtp_url_env] || undefined, smtpUrlEnv: file.email.smtp_url_env, from: file.email.from },
    payments: file.payments === undefined ? undefined : paymentsConfig(file.payments, env),
    referral: file.referral === undefined ? undefined : { basisPoints: basisPointsOf(file.referral.percent), months: file.referral.months },
    lowBalance: {
      defaultThresholdUnits: file.low_balance.default_threshold_rub === undefined ? undefined : parseRub(file.low_balance.default_threshold_rub),
      checkIntervalMs: parseDuration(file.low_balance.check_interval),
    },
    providers,
    models: file.models,
    observability: { otlp: file.observability.otlp === undefined ? undefined : otlpConfig(file.observability.otlp, env) },
  };
}

function botConfig(bot: NonNullable<ConfigFile['bot']>, env: NodeJS.ProcessEnv): BotConfig {
  const { webhook } = bot;
  let listen: { host: string; port: number } | undefined;
  if (webhook !== undefined) {
    const separator = webhook.listen.lastIndexOf(':');
    listen = { host: webhook.listen.slice(0, separator).replace(/^\[(.*)\]$/, '$1'), port: Number(webhook.listen.slice(separator + 1)) };
  }
  return {
    username: bot.username,
    token: env[bot.token_env] || undefined,
    tokenEnv: bot.token_env,
    apiUrl: bot.api_url.replace(/\/+$/, ''),
    mode: bot.mode,
    webhook:
      webhook === undefined || listen === undefined
        ? undefined
        : { publicUrl: webhook.public_url.replace(/\/$/, ''), path: webhook.path, ...listen, secretToken: env[webhook.secret_token_env] || undefined, secretTokenEnv: webhook.secret_token_env },
    defaultModel: bot.default_model,
    maxTurns: bot.conversation.max_turns,
    maxTokens: bot.conversation.max_tokens,
    showPrice: bot.show_price,
    topupContact: bot.topup_contact,
    editIntervalMs: parseDuration(bot.edit_interval),
    lockHeartbeatMs: parseDuration(bot.lock_heartbeat),
    downloadLinkTtlMs: parseDuration(bot.download_link_ttl),
  };
}

function paymentsConfig(payments: NonNullable<ConfigFile['payments']>, env: NodeJS.ProcessEnv): PaymentsConfig {
  const { yookassa, stripe } = payments;
  return {
    minUnits: parseRub(payments.min_rub),
    maxUnits: parseRub(payments.max_rub),
    presetsUnits: payments.presets.map((preset) => parseRub(preset)),
    bonusTiers: payments.bonus_tiers.map((tier) => ({ fromUnits: parseRub(tier.from), basisPoints: basisPointsOf(tier.percent) })).sort((a, b) => (a.fromUnits > b.fromUnits ? -1 : a.fromUnits < b.fromUnits ? 1 : 0)),
    sweepAfterMs: parseDuration(payments.sweep_after),
    yookassa:
      yookassa === undefined
        ? undefined
        : {
            shopId: yookassa.shop_id,
            secretKey: env[yookassa.secret_key_env] || undefined,
            secretKeyEnv: yookassa.secret_key_env,
            apiUrl: yookassa.api_url.replace(/\/+$/, ''),
            vatCode: yookassa.vat_code,
            notificationAddresses: yookassa.notification_addresses,
          },
    stripe:
      stripe === undefined
        ? undefined
        : {
            secretKey: env[stripe.secret_key_env] || undefined,
            secretKeyEnv: stripe.secret_key_env,
            webhookSecret: env[stripe.webhook_secret_env] || undefined,
            webhookSecretEnv: stripe.webhook_secret_env,
            currency: stripe.currency,
            rubRate: stripe.currency === 'rub' ? '1' : stripe.rub_rate!,
            apiUrl: stripe.api_url.replace(/\/+$/, ''),
          },
  };
}

function metricsConfig(metrics: ConfigFile['metrics'], env: NodeJS.ProcessEnv): MetricsConfig {
  let listen: MetricsConfig['listen'];
  if (metrics.listen !== undefined) {
    const separator = metrics.listen.lastIndexOf(':');
    listen = { host: metrics.listen.slice(0, separator).replace(/^\[(.*)\]$/, '$1'), port: Number(metrics.listen.slice(separator + 1)) };
  }
  const token = metrics.token_env === undefined ? undefined : env[metrics.token_env] || undefined;
  let tokenProblem: string | undefined;
  if (metrics.token_env !== undefined && token === undefined) {
    tokenProblem = `metrics.token_env names ${metrics.token_env}, which is not set in this process's environment: set it to the token Prometheus sends, or remove metrics.token_env`;
  } else if (token !== undefined && token.length < minimumMetricsTokenLength) {
    tokenProblem = `the metrics token in ${metrics.token_env} has ${token.length} characters; use at least ${minimumMetricsTokenLength} (e.g. openssl rand -hex 32)`;
  }
  return { tokenEnv: metrics.token_env, token, tokenProblem, listen };
}

function otlpConfig(otlp: NonNullable<ConfigFile['observability']['otlp']>, env: NodeJS.ProcessEnv): OtlpConfig {
  const base = otlp.endpoint.replace(/\/+$/, '');
  const { headers, problem } = otlpHeaders(otlp.headers_env, env);
  return {
    tracesUrl: base.endsWith('/v1/traces') ? base : `${base}/v1/traces`,
    protocol: otlp.protocol,
    headers,
    headersProblem: problem,
    serviceName: otlp.service_name,
    captureContent: otlp.capture_content,
    sampleRatio: otlp.sample_ratio,
  };
}

/** OTEL_EXPORTER_OTLP_HEADERS's format: comma-separated name=value pairs, values percent-encoded. */
function otlpHeaders(name: string | undefined, env: NodeJS.ProcessEnv): { headers: Record<string, string>; problem: string | undefined } {
  if (name === undefined) return { headers: {}, problem: undefined };
  const text = env[name];
  if (!text) return { headers: {}, problem: `observability.otlp.headers_env names ${name}, which is not set: spans are sent without headers` };
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    const header = pair.slice(0, at).trim();
    if (at <= 0 || header === '') return { headers: {}, problem: `${name} is not a list of name=value pairs: spans are sent without headers` };
    try {
      headers[header.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return { headers: {}, problem: `${name} has a badly encoded value for "${header}": spans are sent without headers` };
    }
  }
  return { headers, problem: undefined };
}

/** An address browsers can open for a server listening on `host`: a wildcard host becomes loopback. */
/** A provider's vendor-specific settings, and the values of those that name an environment variable. */
function vendorSettingsOf(provider: ConfigFile['providers'][string], env: NodeJS.ProcessEnv): Pick<ProviderConfig, 'settings' | 'secrets'> {
  const settings: Record<string, unknown> = {};
  const secrets: Record<string, string | undefined> = {};
  for (const name of vendorSettingNames) {
    const value = (provider as Record<string, unknown>)[name];
    if (value === undefined) continue;
    settings[name] = value;
    if (name.endsWith('_env') && typeof value === 'string') secrets[name.slice(0, -'_env'.length)] = env[value] || undefined;
  }
  return { settings, secrets };
}

export function defaultPublicUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function blobStoreConfig(blobs: ConfigFile['storage']['blobs'], dir: string, env: NodeJS.ProcessEnv, section = 'storage.blobs'): BlobStoreConfig {
  if (blobs.kind === 'local') return { kind: 'local', dir, shared: blobs.shared };
  const problems: string[] = [];
  const unset = [blobs.access_key_id_env, blobs.secret_access_key_env].filter((name) => name !== undefined && !env[name]);
  const accessKeyId = blobs.access_key_id_env === undefined ? undefined : env[blobs.access_key_id_env] || undefined;
  const secretAccessKey = blobs.secret_access_key_env === undefined ? undefined : env[blobs.secret_access_key_env] || undefined;
  if ((blobs.access_key_id_env === undefined) !== (blobs.secret_access_key_env === undefined)) {
    problems.push(`${section}: set both access_key_id_env and secret_access_key_env, or neither (the AWS SDK then finds credentials itself)`);
  }
  const partSizeBytes = parseSize(blobs.part_size);
  if (partSizeBytes < 5 * 1024 * 1024) problems.push(`${section}.part_size: S3 refuses parts smaller than 5MB, got ${blobs.part_size}`);
  if (problems.length > 0) throw new ConfigError('the environment', problems);
  return {
    kind: 's3',
    endpoint: blobs.endpoint,
    region: blobs.region,
    bucket: blobs.bucket,
    prefix: blobs.prefix,
    forcePathStyle: blobs.force_path_style,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    credentialsProblem:
      unset.length === 0 ? undefined : `the S3 credentials are read from ${unset.join(' and ')} (${section}), which ${unset.length === 1 ? 'is' : 'are'} not set in this process's environment`,
    partSizeBytes,
  };
}
