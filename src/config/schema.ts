// The shape of config/gateway.yaml. Validated once at start (see load.ts); unknown keys are
// errors so that a typo ("per_1m_input_token") stops the program instead of silently
// pricing a model at nothing.
import { z } from 'zod';
import { acceptedReasoningEfforts, normalizeReasoningEffort } from '../model/reasoning.js';
import { isAddressOrBlock } from '../util/ip-list.js';
import { providerKinds, vendorOf, type ProviderKind } from '../vendors/registry.js';

/** A non-negative decimal string in RUB (or USD for currency rates): "13.50", "0.000135". */
export const decimalString = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,12})?$/, 'expected a non-negative decimal string such as "13.50" (quote it in YAML)');

/** "90s", "15m", "24h", "7d" or a plain number of seconds. */
export const durationString = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d+(ms|s|m|h|d)$/, 'expected a duration such as "90s", "15m", "24h"')]);

/** "512KB", "25MB", "1GB" or a plain number of bytes. */
export const sizeString = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d+(B|KB|MB|GB|TB)$/, 'expected a size such as "25MB" or "1GB"')]);

export const modelTypes = ['text', 'search', 'image', 'video', 'music', 'tts', 'stt', 'embeddings', 'decision'] as const;
export type ModelType = (typeof modelTypes)[number];

// Provider kinds are the vendor registry's keys: a vendor added there is a kind here.
export { providerKinds, type ProviderKind } from '../vendors/registry.js';

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;


/** An amount in RUB with up to 4 decimals, as a string. */
const rubAmount = z.string().regex(/^\d{1,9}(\.\d{1,4})?$/, 'expected an amount in RUB with up to 4 decimals, such as "500" (quote it in YAML)');
/** A percentage with up to 2 decimals, as a string (0 to 100). */
const percentString = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,2})?$/, 'expected a percentage such as "10" or "2.5" (quote it in YAML)')
  .refine((value) => Number(value) <= 100, 'expected at most 100');

/** Each vendor's own provider settings (Vendor.providerSettings), all optional here: the kind's own are checked below. */
const vendorSettings: Record<string, z.ZodType> = {};
const settingKinds = new Map<string, ProviderKind[]>();
for (const kind of providerKinds) {
  for (const [name, schema] of Object.entries(vendorOf(kind)?.providerSettings ?? {})) {
    vendorSettings[name] ??= (schema as z.ZodType).optional();
    settingKinds.set(name, [...(settingKinds.get(name) ?? []), kind]);
  }
}
/** The names of every vendor-specific provider setting (config/load.ts copies them into ProviderConfig.settings). */
export const vendorSettingNames: readonly string[] = [...settingKinds.keys()];

const providerSchema = z
  .strictObject({
    kind: z.enum(providerKinds),
    base_url: z.url().optional(),
    /** Name of the environment variable holding the secret; the secret itself never sits in the file. */
    api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as OPENAI_API_KEY').optional(),
    timeout: durationString.optional(),
    ...vendorSettings,
  })
  .superRefine((provider, context) => {
    for (const [name, kinds] of settingKinds) {
      if ((provider as Record<string, unknown>)[name] === undefined || kinds.includes(provider.kind)) continue;
      context.addIssue({ code: 'custom', path: [name], message: `"${name}" is a setting of providers of kind ${kinds.join(', ')}, not ${provider.kind}` });
    }
    const required = vendorOf(provider.kind)?.providerSettings ?? {};
    for (const [name, schema] of Object.entries(required)) {
      if ((provider as Record<string, unknown>)[name] !== undefined || (schema as z.ZodType).safeParse(undefined).success) continue;
      context.addIssue({ code: 'custom', path: [name], message: `providers of kind ${provider.kind} need "${name}"` });
    }
  });

const environmentVariableName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as S3_ACCESS_KEY_ID');

/**
 * Where file bytes live (src/storage/blob-store.ts). `local`: the directory storage.dir, right for
 * one machine; `shared: true` says that directory is the same for every instance (a network
 * volume), which is what lets instances on several machines start on it. `s3`: any
 * S3-compatible object store; credentials by environment variable name, never in the file
 * (absent: the AWS SDK's own chain — its environment variables, a profile, an instance role).
 */
const blobStoreSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('local'),
    shared: z.boolean().default(false),
  }),
  z.strictObject({
    kind: z.literal('s3'),
    /** Absent: AWS S3 itself for the region. */
    endpoint: z.url().optional(),
    region: z.string().min(1).default('us-east-1'),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)'),
    /** Put before every key ("gateway/"), so that one bucket can hold several installations. */
    prefix: z.string().regex(/^([A-Za-z0-9!_.*'()-]+\/)*$/, 'expected folder names each ending in "/", such as "gateway/"').default(''),
    /** Bucket in the path (http://host/bucket/key) instead of the host name: MinIO, Ceph, Garage, SeaweedFS need it. */
    force_path_style: z.boolean().default(false),
    access_key_id_env: environmentVariableName.optional(),
    secret_access_key_env: environmentVariableName.optional(),
    /** Objects larger than this are uploaded in parts of this size (S3's minimum is 5MB). */
    part_size: sizeString.default('8MB'),
  }),
]);

const routeSchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  weight: z.number().int().min(0).max(1000).optional(),
});

const priceTable = z.union([decimalString, z.record(z.string().min(1), decimalString)]);

export const pricingSchema = z.strictObject({
  per_1m_input_tokens: decimalString.optional(),
  per_1m_cached_input_tokens: decimalString.optional(),
  per_1m_output_tokens: decimalString.optional(),
  /** One price, or a table keyed by size ("1024x1024"), quality ("hd"), resolution ("2K") or "default". */
  per_image: priceTable.optional(),
  per_1m_characters: decimalString.optional(),
  per_minute: decimalString.optional(),
  /** Video: one price, or a table keyed by resolution ("720p", "1080p") or size ("1280x720"). */
  per_second: priceTable.optional(),
  per_reference: decimalString.optional(),
  per_generation: decimalString.optional(),
  per_megapixel_second: decimalString.optional(),
});
export type Pricing = z.infer<typeof pricingSchema>;

export const capabilitiesSchema = z.strictObject({
  // text / search
  // The levels (`xhigh` is one of its own); `none` is read as `off` (the catalog shows the level names).
  reasoning_efforts: z.array(z.enum(acceptedReasoningEfforts).transform(normalizeReasoningEffort)).optional(),
  can_disable_reasoning: z.boolean().optional(),
  vision: z.boolean().optional(),
  tools: z.boolean().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  context_window: z.number().int().positive().optional(),
  prompt_cache: z.boolean().optional(),
  /** Anthropic-kind routes: the model takes output_config.format (else a forced tool carries the JSON). */
  structured_outputs: z.boolean().optional(),
  // image
  references: z.boolean().optional(),
  sizes: z.array(z.string()).optional(),
  aspect_ratios: z.array(z.string()).optional(),
  resolutions: z.array(z.string()).optional(),
  qualities: z.array(z.string()).optional(),
  /**
   * The model streams previews (`stream: true` with `partial_images` 1–3): its routes' upstreams
   * send OpenAI's partial_image events (the vendor's MediaAdapter.streamImages). Without it,
   * `partial_images` above 0 is a 422 before any hold.
   */
  partial_images: z.boolean().optional(),
  // video / music / audio
  durations: z.array(z.number().positive()).optional(),
  max_references: z.number().int().nonnegative().optional(),
  tracks: z.number().int().positive().optional(),
  /** Music without vocals: the request's mode is ignored, no lyrics are sent. */
  instrumental: z.boolean().optional(),
  voices: z.array(z.string()).optional(),
  formats: z.array(z.string()).optional(),
  dimensions: z.number().int().positive().optional(),
});
export type Capabilities = z.infer<typeof capabilitiesSchema>;

export const modelSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'expected an id such as "openai/gpt-4o-mini"'),
    name: z.string().min(1),
    type: z.enum(modelTypes),
    owned_by: z.string().min(1).optional(),
    description: z.string().optional(),
    /** Unix seconds shown as `created` in /v1/models. */
    created: z.number().int().nonnegative().optional(),
    aliases: z.array(z.string().min(1)).default([]),
    /** Names this model answers to only while no enabled model claims them (e.g. "dall-e-3" served by a stand-in when OpenAI is not configured). */
    fallback_aliases: z.array(z.string().min(1)).default([]),
    route: routeSchema.optional(),
    routes: z.array(routeSchema).min(1).optional(),
    pricing: pricingSchema,
    capabilities: capabilitiesSchema.default({}),
    /** Set when a model is a deprecated alias kept for clients of another vendor's catalog. */
    deprecated: z.boolean().optional(),
  })
  .refine((m) => Boolean(m.route) !== Boolean(m.routes), {
    message: 'give exactly one of "route" or "routes"',
    path: ['route'],
  });
export type ModelConfig = z.infer<typeof modelSchema>;

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(8080),
      /** Body size limit for JSON requests. */
      json_limit: sizeString.default('10MB'),
      /** A streamed response silent this long gets a `: ping` SSE comment. */
      stream_keepalive: durationString.default('15s'),
      /** Time a client has to send a request's headers (slowloris); Node's default is 60 s. */
      headers_timeout: durationString.default('20s'),
      /** Time a client has to send a whole request, body included (a trickled upload); never limits the response. */
      request_timeout: durationString.default('5m'),
      /** An idle keep-alive connection is closed after this. */
      keep_alive_timeout: durationString.default('65s'),
      /** Open client connections at most; beyond it new connections are closed at once. */
      max_connections: z.number().int().min(1).max(1_000_000).default(4096),
      /** On SIGTERM: how long in-flight requests may run before they are cut (charged for what was produced). */
      drain_timeout: durationString.default('30s'),
      /**
       * Serving processes on this machine (`serve --workers`): 1 runs one process as before; N or
       * "auto" (one per core) runs a primary and N workers on one port (docs/scaling.md).
       */
      workers: z.union([z.number().int().min(1).max(256), z.literal('auto')]).default(1),
      /**
       * Load balancers / TLS terminators in front of the gateway (addresses or CIDR blocks): from
       * these peers only, X-Forwarded-For and X-Forwarded-Proto name the client and its scheme.
       */
      trusted_proxies: z
        .array(z.string().refine(isAddressOrBlock, 'expected an IPv4/IPv6 address or CIDR block (10.0.0.0/8, 203.0.113.7, 2001:db8::/32)'))
        .max(100)
        .default([]),
    })
    .prefault({}),
  /** Where SQLite and stored files live unless given elsewhere. Relative to the install root. */
  data_dir: z.string().min(1).default('./data'),
  database: z
    .strictObject({
      url: z.string().regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'expected "sqlite:PATH" or "postgres://user@host/db"').optional(),
      pool_max: z.number().int().min(1).max(200).default(10),
    })
    .prefault({}),
  cache: z
    .strictObject({
      url: z.string().regex(/^(memory|rediss?:\/\/.+)$/, 'expected "memory" or "redis://host:port"').default('memory'),
      /** Longest wait for one Redis command before the cache counts as unavailable for that request. */
      timeout: durationString.default('250ms'),
      /** While Redis is unreachable: "open" limits each process on its own, "closed" answers 503. */
      on_unavailable: z.enum(['open', 'closed']).default('open'),
    })
    .prefault({}),
  storage: z
    .strictObject({
      dir: z.string().min(1).optional(),
      temp_ttl: durationString.default('24h'),
      permanent_quota: sizeString.default('1GB'),
      blobs: blobStoreSchema.prefault({ kind: 'local' }),
      /**
       * The store `gateway files migrate-store` copies every live blob to (src/storage/blob-migration.ts).
       * Nothing else reads it: the gateway keeps using `blobs` until the operator renames this block
       * to `blobs` after the copy reported success.
       */
      blobs_next: blobStoreSchema.optional(),
    })
    .prefault({}),
  keys: z
    .strictObject({
      prefix: z.string().regex(/^[a-z][a-z0-9]{0,15}$/, 'expected 1-16 lowercase letters/digits, starting with a letter').default('gw'),
    })
    .prefault({}),
  rate_limit: z
    .strictObject({
      requests_per_minute: z.number().int().min(1).max(1_000_000).default(60),
    })
    .prefault({}),
  currency: z
    .strictObject({
      usd_rub: decimalString.default('90.00'),
    })
    .prefault({}),
  holds: z
    .strictObject({
      /** A hold not settled within this time is released by the sweeper (crash recovery). */
      ttl: durationString.default('1h'),
      sweep_interval: durationString.default('30s'),
      /** How often a serving process writes its heartbeat (its holds carry its instance id). */
      heartbeat_interval: durationString.default('2s'),
      /** A process whose heartbeat is this old is gone: any live process releases its request holds. */
      owner_gone_after: durationString.default('10s'),
    })
    .prefault({}),
  webhooks: z
    .strictObject({
      allow_loopback: z.boolean().default(false),
      allow_private: z.boolean().default(false),
      /** Waits between delivery attempts; the defaults (Standard Webhooks' schedule) span about 27 hours. */
      retry_delays: z.array(durationString).min(1).max(50).default(['5s', '5m', '30m', '2h', '5h', '10h', '10h']),
      /** One attempt's limit (connect + answer). */
      timeout: durationString.default('15s'),
    })
    .prefault({}),
  jobs: z
    .strictObject({
      /** How often the runner looks for due jobs and webhook deliveries. */
      tick: durationString.default('500ms'),
      /** A claimed job not touched for this long is taken over by another runner (its process died). */
      lease: durationString.default('60s'),
      /** A job not finished this long after it was created fails and its hold is released. */
      deadline: durationString.default('2h'),
      /** Jobs one runner works on at the same time. */
      concurrency: z.number().int().min(1).max(200).default(16),
    })
    .prefault({}),
  /** The model a request gets when it names none (else the first enabled model of the type). */
  defaults: z
    .strictObject({
      video_model: z.string().min(1).optional(),
      video_upscale_model: z.string().min(1).optional(),
      music_model: z.string().min(1).optional(),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(logLevels).default('info'),
    })
    .prefault({}),
  /** Opt-in telemetry beyond the log and /metrics (docs/operations.md "Traces"). */
  observability: z
    .strictObject({
      /** OpenTelemetry traces over OTLP/HTTP; absent: none, and no OpenTelemetry code is loaded. */
      otlp: z
        .strictObject({
          /** The collector's base address (…/v1/traces is appended unless it ends so already). */
          endpoint: z.string().regex(/^https?:\/\/[^\s]+$/, 'expected an http(s) address such as "http://127.0.0.1:4318"'),
          protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
          /** An environment variable holding headers for the collector, as OTEL_EXPORTER_OTLP_HEADERS: "name=value,name2=value2". */
          headers_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as OTLP_HEADERS').optional(),
          service_name: z.string().min(1).default('gateway'),
          /** Record prompts and completions (gen_ai.input.messages, gen_ai.output.messages) on the spans. */
          capture_content: z.boolean().default(false),
          /** The share of requests traced (by trace id), 0 to 1. */
          sample_ratio: z.number().min(0).max(1).default(1),
        })
        .optional(),
    })
    .prefault({}),
  /** The web cabinet (docs/cabinet.md): login links, sessions and their limits. */
  cabinet: z
    .strictObject({
      /** Where browsers reach the gateway: login links point here; https makes the cookie Secure. Default http://<server.host>:<server.port>. */
      public_url: z.string().regex(/^https?:\/\/[^/?#\s]+\/?$/, 'expected a scheme and host only, such as "https://gateway.example.com"').optional(),
      /** How long a login link printed by `gateway cabinet link` may be redeemed (once). */
      link_ttl: durationString.default('15m'),
      /** A session unused this long ends. */
      session_idle: durationString.default('2h'),
      /** An account session ends this long after its login, used or not. */
      session_max: durationString.default('7d'),
      /** An operator's (admin) session ends this long after its login. */
      admin_session_max: durationString.default('12h'),
      /** POST /cabinet/api/login attempts per client address per minute. */
      login_attempts_per_minute: z.number().int().min(1).max(10_000).default(10),
      /** Password login attempts per email address per minute, whatever address they come from. */
      login_attempts_per_email_per_minute: z.number().int().min(1).max(10_000).default(10),
      /** Attempts to redeem a code (POST /cabinet/api/codes/redeem) per account per minute, and as many per client address. */
      code_attempts_per_minute: z.number().int().min(1).max(10_000).default(10),
      /** Who may create an account (docs/cabinet.md, "Sign-up"): nobody (only the operator's links), holders of an invite code, or anyone. */
      signup: z.enum(['closed', 'invite', 'open']).default('closed'),
      /** RUB credited to a new account as a `bonus` ledger row; none when unset. */
      signup_bonus: z.string().regex(/^\d{1,9}(\.\d{1,4})?$/, 'expected an amount in RUB with up to 4 decimals, such as "50.00" (quote it in YAML)').optional(),
      /** How long a link sent by email (verify, reset, change of address, joining an account) may be followed (once). */
      email_link_ttl: durationString.default('1h'),
      /** OpenID Connect providers offered on the login page. */
      oidc: z
        .array(
          z.strictObject({
            /** In the callback path and the stored identity (`oidc:<name>`): never rename a provider in use. */
            name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'expected a lowercase name such as "google"'),
            /** What the login button says; default the name. */
            label: z.string().min(1).max(60).optional(),
            /** The issuer's URL; its /.well-known/openid-configuration is read at the first login. */
            issuer: z.url(),
            client_id: z.string().min(1),
            client_secret_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, such as GOOGLE_CLIENT_SECRET'),
          }),
        )
        .default([]),
      /** Telegram Login Widget (docs/cabinet.md): the bot whose token signs the widget's data. */
      telegram_login: z
        .strictObject({
          bot_username: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{3,31}$/, 'expected the bot\'s username without @'),
          bot_token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, such as TELEGRAM_BOT_TOKEN'),
          /** Signed data older than this (auth_date) is refused. */
          max_age: durationString.default('1d'),
        })
        .optional(),
    })
    .prefault({}),
  /** The Telegram bot (docs/bot.md): the gateway's third door, on the same accounts, balance and history. Run by `gateway bot` or `serve --bot`. */
  bot: z
    .strictObject({
      /** The bot's username without @ (BotFather names it): the cabinet's "Connect Telegram" link is https://t.me/<username>?start=…. */
      username: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{3,31}$/, "expected the bot's username without @, such as my_gateway_bot"),
      /** The environment variable holding the token BotFather gave (123456:ABC…). */
      token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, such as TELEGRAM_BOT_TOKEN'),
      /** The Bot API server: Telegram's, a self-hosted telegram-bot-api, or a test's fake. */
      api_url: z.url().default('https://api.telegram.org'),
      /** How updates arrive: the bot asks for them (polling), or Telegram posts them (webhook). */
      mode: z.enum(['polling', 'webhook']).default('polling'),
      /** mode: webhook. Telegram posts updates to `<public_url><path>`; the bot listens on `listen` (behind the TLS proxy that public_url names). */
      webhook: z
        .strictObject({
          public_url: z.string().regex(/^https?:\/\/[^/?#\s]+\/?$/, 'expected a scheme and host only, such as "https://bot.example.com"'),
          path: z.string().regex(/^\/[A-Za-z0-9/_-]{0,200}$/, 'expected a path such as /telegram/webhook').default('/telegram/webhook'),
          listen: z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'expected host:port, such as 127.0.0.1:8081').default('127.0.0.1:8081'),
          /** The environment variable holding the secret Telegram echoes in X-Telegram-Bot-Api-Secret-Token (1–256 of A-Z a-z 0-9 _ -). */
          secret_token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, such as TELEGRAM_WEBHOOK_SECRET'),
        })
        .optional(),
      /** The text model a user chats with until they choose one (a catalog id). */
      default_model: z.string().min(1),
      /** What a chat remembers: the last max_turns exchanges, and no more than max_tokens of them (estimated). */
      conversation: z
        .strictObject({
          max_turns: z.number().int().min(1).max(200).default(20),
          max_tokens: z.number().int().min(100).max(1_000_000).default(8000),
        })
        .prefault({}),
      /** Whether each answer shows what it cost (a user can switch it in the settings). */
      show_price: z.boolean().default(true),
      /** Who /topup names when no payment provider is configured: "@operator", an email, a URL. */
      topup_contact: z.string().min(1).max(200).optional(),
      /** A streamed answer's message is edited at most this often (Telegram limits edits per chat). */
      edit_interval: durationString.default('1s'),
      /** A running bot renews its hold on the token this often; another bot may take it after three missed renewals. */
      lock_heartbeat: durationString.default('10s'),
      /** How long a download link the bot sends for a result too large for Telegram opens its file. */
      download_link_ttl: durationString.default('3d'),
    })
    .superRefine((bot, context) => {
      if (bot.mode === 'webhook' && bot.webhook === undefined) context.addIssue({ code: 'custom', path: ['webhook'], message: 'mode: webhook needs a webhook block (public_url, secret_token_env)' });
    })
    .optional(),
  /** Outgoing email over SMTP (docs/configuration.md, "Email"): verification, password reset, member invitations. Without it, email sign-up is unavailable. */
  email: z
    .strictObject({
      /** The environment variable holding the SMTP URL: smtp://user:pass@host:587 or smtps://…:465. */
      smtp_url_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, such as SMTP_URL'),
      /** The From address: "Gateway <noreply@example.com>". */
      from: z.string().min(3).max(320),
    })
    .optional(),
  /** Customers' own payments (docs/payments.md): the providers, the amounts offered, the top-up bonus tiers. Without it, only the operator adds money. */
  payments: z
    .strictObject({
      /** The least and the most one payment may add, in RUB. */
      min_rub: rubAmount.default('100'),
      max_rub: rubAmount.default('100000'),
      /** The amounts the top-up page offers as buttons, in RUB. */
      presets: z.array(rubAmount).max(8).default(['300', '1000', '3000']),
      /** A `bonus` row next to a top-up of at least `from` RUB: `percent` of it (the highest tier reached applies). */
      bonus_tiers: z.array(z.strictObject({ from: rubAmount, percent: percentString })).max(20).default([]),
      /** A payment still pending this long after it was made is asked of its provider by the sweeper (a lost notification, a crash before the credit). */
      sweep_after: durationString.default('1m'),
      /** YooKassa (docs/payments.md, "YooKassa"): payments in RUB with a 54-FZ receipt. */
      yookassa: z
        .strictObject({
          shop_id: z.string().regex(/^[0-9]{1,20}$/, 'expected the shop id from the YooKassa dashboard, digits only (quote it in YAML)'),
          secret_key_env: environmentVariableName,
          /** The API's base address; `sim` is the built-in simulator (no key, no real money: tests and demos only). */
          api_url: z.union([z.literal('sim'), z.url()]).default('https://api.yookassa.ru/v3'),
          /** The receipt's VAT code (vat_code of 54-FZ: 1 = without VAT, … 6 = 20/120), printed on the one "balance top-up" item. */
          vat_code: z.number().int().min(1).max(12).default(1),
          /** Accept notifications only from these address ranges (CIDR), such as YooKassa's published ones; default any (the payment is fetched from the API before anything is credited). */
          notification_addresses: z.array(z.string().regex(/^[0-9a-fA-F:.]+(\/\d{1,3})?$/, 'expected an address or a CIDR range such as 185.71.76.0/27')).optional(),
        })
        .optional(),
      /** Stripe Checkout (docs/payments.md, "Stripe"): card payments in `currency`, credited at `rub_rate`. */
      stripe: z
        .strictObject({
          secret_key_env: environmentVariableName,
          webhook_secret_env: environmentVariableName,
          /** ISO 4217, lowercase as Stripe writes it. */
          currency: z.string().regex(/^[a-z]{3}$/, 'expected a currency code such as "usd" or "eur"').default('usd'),
          /** RUB credited per unit of `currency` (required unless the currency is rub). */
          rub_rate: z.string().regex(/^\d{1,9}(\.\d{1,8})?$/, 'expected RUB per unit of the currency, such as "92.50" (quote it in YAML)').optional(),
          /** The API's base address; `sim` is the built-in simulator. */
          api_url: z.union([z.literal('sim'), z.url()]).default('https://api.stripe.com'),
        })
        .optional(),
    })
    .optional(),
  /** Referral income (docs/payments.md, "Referrals"): a share of the paid top-ups of accounts that signed up through a customer's link. */
  referral: z
    .strictObject({
      percent: percentString,
      /** For how many months after the referred account's sign-up its top-ups earn. */
      months: z.number().int().min(1).max(120).default(12),
    })
    .optional(),
  /** The email (and optional signed webhook) sent when an account's available money falls below its threshold (docs/payments.md, "Low balance"). */
  low_balance: z
    .strictObject({
      /** The threshold of accounts that have not set their own, in RUB; none when unset. */
      default_threshold_rub: rubAmount.optional(),
      /** How often balances are looked at. */
      check_interval: durationString.default('1m'),
    })
    .prefault({}),
  /**
   * Who may read GET /metrics (docs/operations.md, "Metrics"). Neither set: the API port answers
   * loopback peers only. token_env: the Bearer token is required. listen: /metrics moves to a
   * listener of its own at host:port.
   */
  // A section whose keys are all commented out (as in the example) is YAML null: the defaults.
  metrics: z.preprocess(
    (section) => section ?? {},
    z.strictObject({
      /** The environment variable holding the token: `Authorization: Bearer <token>`. */
      token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, such as METRICS_TOKEN').optional(),
      /** host:port (an IPv6 host in brackets) of a listener serving /metrics alone. */
      listen: z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'expected host:port, such as 127.0.0.1:9464 or [::1]:9464').optional(),
    }),
  ),
  providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected a lowercase provider name'), providerSchema).default({}),
  models: z.array(modelSchema).default([]),
});
export type ConfigFile = z.infer<typeof configSchema>;
