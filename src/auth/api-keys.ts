// API keys: "<prefix>-<43 base64url chars>" carrying 256 random bits. Only the sha256 of the
// whole key, its prefix and its last 4 characters are stored. Lookups are by hash, a prepared
// hot statement (src/db/hot-statements.ts). A revocation (from the CLI, another process)
// holds on the very next request:
// - most routes look the key up on every request;
// - the chat routes (most traffic) may take it from this process's cache of keys seen live:
//   a key changes after creation only by its revocation or an update (`keys update`, PATCH
//   /admin/v1/keys/:id, PATCH /cabinet/api/keys/:id: scopes, expiry, models, addresses, budget,
//   rpm, tpm, in-flight, name: each bumps api_keys.revision), and their hold re-checks both in
//   the hold's own statement (Ledger.hold with keyId and keyRevision), so the cache saves a
//   database round trip per request without serving a revoked key past the hold. A revoked key
//   found either way leaves the cache; a changed one is read again (refresh) and the request
//   judged by it (src/pipeline/chat.ts). A cached key's refusal by its controls (expired,
//   address, model) is confirmed on the key as it is now before it is answered.
// last_used_at is kept in memory and written in one batch per interval, not per request.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { hotStatements, type HotStatement } from '../db/hot-statements.js';
import { optionalNumber } from '../db/row-values.js';
import { writeAudit } from '../audit/audit-log.js';
import { AccountDisabledError, KeyChangedError, KeyNotLiveError } from './key-errors.js';
import { formatRub, unitsFromSql, unitsToSql } from '../util/money.js';
import { DomainError } from '../errors/domain-error.js';
import { newId } from '../util/ids.js';
import type { BudgetPeriod } from './key-policy.js';
import { allScopes, type Scope } from './scopes.js';

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly name: string | null;
  readonly prefix: string;
  readonly last4: string;
  readonly scopes: readonly Scope[];
  /** Per-key requests per minute; null uses the configured default. */
  readonly rpm: number | null;
  /** Tokens per minute (input + output, counted at settle), or null: no such limit (key-limits.ts). */
  readonly tpm: number | null;
  /** Requests of the key in flight at once at most, or null: no such limit (key-limits.ts). */
  readonly maxInFlight: number | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  readonly lastUsedAt: number | null;
  /** When the key stops working (ms), or null: never (key-policy.ts). */
  readonly expiresAt: number | null;
  /** Model ids or glob patterns the key may use, or null: any. */
  readonly models: readonly string[] | null;
  /** IPv4/IPv6 addresses or CIDR blocks the key may be used from, or null: any. */
  readonly allowedIps: readonly string[] | null;
  /** Spending budget per period (units), or null: none. */
  readonly budgetUnits: bigint | null;
  readonly budgetPeriod: BudgetPeriod | null;
  /** +1 on every `keys update`: the hold re-checks that a cached key is still this revision. */
  readonly revision: number;
  /** `api`: made by `keys create` (or the cabinet's keys page); `cabinet`: the key the web cabinet acts through; `bot`: the Telegram bot's (src/cabinet/cabinet-key.ts). */
  readonly purpose: KeyPurpose;
}

export type KeyPurpose = 'api' | 'cabinet' | 'bot';

/** What `keys create` and `keys update` (and the admin API's and the cabinet's PATCH) may set (undefined: unchanged / none). */
export interface KeyControls {
  /** In the canonical order (allScopes), each once. */
  readonly scopes?: readonly Scope[];
  readonly expiresAt?: number | null;
  readonly models?: readonly string[] | null;
  readonly allowedIps?: readonly string[] | null;
  readonly budgetUnits?: bigint | null;
  readonly budgetPeriod?: BudgetPeriod | null;
  readonly rpm?: number | null;
  readonly tpm?: number | null;
  readonly maxInFlight?: number | null;
  readonly name?: string | null;
}

export class KeyNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly keyId: string) {
    super(`no API key "${keyId}"`);
    this.name = 'KeyNotFoundError';
  }
}

export interface KeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  hash: string;
  last4: string;
  scopes: string;
  rpm: number | null;
  tpm: number | null;
  max_in_flight: number | null;
  created_at: string | number;
  revoked_at: string | number | null;
  last_used_at: string | number | null;
  expires_at: string | number | null;
  models: string | null;
  allowed_ips: string | null;
  budget_units: string | number | null;
  budget_period: string | null;
  revision: string | number;
  purpose: string;
  /** From the lookup's join: the key's account is disabled. */
  account_disabled_at?: string | number | null;
}

export function keyFromRow(row: KeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: row.scopes.split(',').filter((s): s is Scope => (allScopes as readonly string[]).includes(s)),
    rpm: row.rpm === null ? null : Number(row.rpm),
    tpm: optionalNumber(row.tpm),
    maxInFlight: optionalNumber(row.max_in_flight),
    createdAt: Number(row.created_at),
    revokedAt: optionalNumber(row.revoked_at),
    lastUsedAt: optionalNumber(row.last_used_at),
    expiresAt: optionalNumber(row.expires_at),
    models: row.models === null ? null : row.models.split(','),
    allowedIps: row.allowed_ips === null ? null : row.allowed_ips.split(','),
    budgetUnits: row.budget_units === null ? null : unitsFromSql(row.budget_units),
    budgetPeriod: row.budget_period as BudgetPeriod | null,
    revision: Number(row.revision),
    purpose: row.purpose === 'cabinet' || row.purpose === 'bot' ? row.purpose : 'api',
  };
}

/** The columns of what `keys create`/`keys update` set. */
function controlColumns(controls: KeyControls): Partial<KeyRow> {
  const columns: Partial<KeyRow> = {};
  if (controls.scopes !== undefined) columns.scopes = controls.scopes.join(',');
  if (controls.expiresAt !== undefined) columns.expires_at = controls.expiresAt;
  if (controls.models !== undefined) columns.models = controls.models === null ? null : controls.models.join(',');
  if (controls.allowedIps !== undefined) columns.allowed_ips = controls.allowedIps === null ? null : controls.allowedIps.join(',');
  if (controls.budgetUnits !== undefined) columns.budget_units = controls.budgetUnits === null ? null : unitsToSql(controls.budgetUnits);
  if (controls.budgetPeriod !== undefined) columns.budget_period = controls.budgetPeriod;
  if (controls.rpm !== undefined) columns.rpm = controls.rpm;
  if (controls.tpm !== undefined) columns.tpm = controls.tpm;
  if (controls.maxInFlight !== undefined) columns.max_in_flight = controls.maxInFlight;
  if (controls.name !== undefined) columns.name = controls.name;
  return columns;
}

// The account's disabled flag comes with the key, in the same lookup (a primary-key join).
const keyByHash: HotStatement = {
  sqlite: 'SELECT k.*, a.disabled_at AS account_disabled_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = :hash',
  pg: 'SELECT k.*, a.disabled_at AS account_disabled_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = :hash',
  writes: false,
};

/**
 * Why the key may not be used now, read on `db` (a transaction: what it sees): KeyNotLiveError
 * (revoked or gone), AccountDisabledError, or null when it may.
 */
export async function keyRefusal(db: Knex, keyId: string, revision?: number): Promise<KeyNotLiveError | AccountDisabledError | KeyChangedError | null> {
  const row: { revoked_at: unknown; account_id: string; disabled_at: unknown; revision: unknown } | undefined = await db('api_keys as k')
    .join('accounts as a', 'a.id', 'k.account_id')
    .where('k.id', keyId)
    .first('k.revoked_at', 'k.account_id', 'a.disabled_at', 'k.revision');
  if (!row || row.revoked_at !== null) return new KeyNotLiveError(keyId);
  if (row.disabled_at !== null) return new AccountDisabledError(keyId, row.account_id);
  if (revision !== undefined && Number(row.revision) !== revision) return new KeyChangedError(keyId);
  return null;
}

/** The key's controls as the CLI shows them (and the audit trail records their changes). */
export function presentControls(apiKey: ApiKey) {
  return {
    scopes: apiKey.scopes,
    expires_at: apiKey.expiresAt === null ? null : new Date(apiKey.expiresAt).toISOString(),
    models: apiKey.models,
    allowed_ips: apiKey.allowedIps,
    budget_rub: apiKey.budgetUnits === null ? null : formatRub(apiKey.budgetUnits),
    budget_period: apiKey.budgetPeriod,
    rpm: apiKey.rpm,
    tpm: apiKey.tpm,
    max_in_flight: apiKey.maxInFlight,
    name: apiKey.name,
  };
}

/** Whether the key exists unrevoked and its account is enabled. */
export async function keyIsLive(db: Knex, keyId: string): Promise<boolean> {
  return (await keyRefusal(db, keyId)) === null;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Keys kept by the cache at most; past it the cache starts over (a lookup refills it). */
const cachedKeysLimit = 10_000;

export class ApiKeys {
  /** key id → last use (ms), waiting for the next flush. */
  private readonly pendingLastUsed = new Map<string, number>();
  /** sha256 of a presented key → the key, as last seen live (see the header: who may use it). */
  private readonly liveByHash = new Map<string, ApiKey>();

  constructor(
    private readonly db: Knex,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates a key and returns it with its secret: the only time the secret exists in full.
   * `audit`: the creation's audit row (`key.create`, never the secret) in the same transaction.
   */
  async create(options: { accountId: string; scopes?: readonly Scope[]; name?: string | null; rpm?: number | null; purpose?: KeyPurpose; audit?: { actor: string } } & KeyControls): Promise<{ apiKey: ApiKey; key: string }> {
    const key = `${this.prefix}-${randomBytes(32).toString('base64url')}`;
    const row: KeyRow = {
      id: newId('key'),
      account_id: options.accountId,
      name: options.name ?? null,
      prefix: this.prefix,
      hash: hashKey(key),
      last4: key.slice(-4),
      scopes: (options.scopes ?? allScopes).join(','),
      rpm: options.rpm ?? null,
      tpm: null,
      max_in_flight: null,
      created_at: this.now(),
      revoked_at: null,
      last_used_at: null,
      expires_at: null,
      models: null,
      allowed_ips: null,
      budget_units: null,
      budget_period: null,
      revision: 0,
      purpose: options.purpose ?? 'api',
      ...controlColumns({ ...options, rpm: undefined, name: undefined }),
    };
    const apiKey = keyFromRow(row);
    const audit = options.audit;
    if (!audit) await this.db('api_keys').insert(row);
    else {
      await this.db.transaction(async (trx) => {
        await trx('api_keys').insert(row);
        const details = { prefix: apiKey.prefix, last4: apiKey.last4, ...presentControls(apiKey) };
        await writeAudit(trx, { actor: audit.actor, action: 'key.create', target: apiKey.id, accountId: apiKey.accountId, details }, apiKey.createdAt);
      });
    }
    return { apiKey, key };
  }

  /**
   * Changes a key's controls (scopes, expiry, models, addresses, budget, rpm, tpm, in-flight, name) without touching its
   * secret, and writes the audit row in the same transaction. The revision goes up by one: a
   * process holding the key in its cache sees the change at the key's next hold (the hold
   * statement re-checks the revision) and reads the key again.
   */
  async update(id: string, controls: KeyControls, audit: { actor: string }): Promise<{ before: ApiKey; after: ApiKey }> {
    return this.db.transaction(async (trx) => {
      const row: KeyRow | undefined = await trx('api_keys').select('*').where({ id }).first();
      if (!row) throw new KeyNotFoundError(id);
      const before = keyFromRow(row);
      await trx('api_keys').where({ id }).update({ ...controlColumns(controls), revision: trx.raw('revision + 1') });
      const after = keyFromRow((await trx('api_keys').select('*').where({ id }).first()) as KeyRow);
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      const shown = (key: ApiKey) => presentControls(key);
      const [from, to] = [shown(before), shown(after)];
      for (const field of Object.keys(to) as (keyof typeof to)[]) {
        if (JSON.stringify(from[field]) !== JSON.stringify(to[field])) changes[field] = { from: from[field], to: to[field] };
      }
      await writeAudit(trx, { actor: audit.actor, action: 'key.update', target: id, accountId: before.accountId, details: { changes } }, this.now());
      return { before, after };
    });
  }

  /**
   * The key as the database has it now, replacing this process's cached copy (a hold found the
   * cached revision stale); KeyNotLiveError / AccountDisabledError when it may not be used.
   */
  async refresh(id: string): Promise<ApiKey> {
    const row: KeyRow | undefined = await this.db('api_keys as k')
      .join('accounts as a', 'a.id', 'k.account_id')
      .where('k.id', id)
      .first('k.*', 'a.disabled_at as account_disabled_at');
    this.forget(id);
    if (!row || row.revoked_at !== null) throw new KeyNotLiveError(id);
    if (row.account_disabled_at !== null && row.account_disabled_at !== undefined) throw new AccountDisabledError(id, row.account_id);
    const apiKey = keyFromRow(row);
    this.liveByHash.set(row.hash, apiKey);
    return apiKey;
  }

  async list(accountId?: string): Promise<ApiKey[]> {
    const query = this.db('api_keys').select('*').orderBy('created_at').orderBy('id');
    if (accountId) query.where({ account_id: accountId });
    return (await query).map(keyFromRow);
  }

  async find(id: string): Promise<ApiKey> {
    const row: KeyRow | undefined = await this.db('api_keys').select('*').where({ id }).first();
    if (!row) throw new KeyNotFoundError(id);
    return keyFromRow(row);
  }

  /**
   * Revokes a key; revoking twice keeps the first revocation time. `audit`: the revocation's
   * audit row (`key.revoke`) is written in the same transaction, only when it revoked the key.
   */
  async revoke(id: string, options: { audit?: { actor: string } } = {}): Promise<ApiKey> {
    const audit = options.audit;
    if (!audit) {
      await this.db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: this.now() });
      return this.find(id);
    }
    return this.db.transaction(async (trx) => {
      const at = this.now();
      const revoked = Number(await trx('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: at }));
      const row: KeyRow | undefined = await trx('api_keys').select('*').where({ id }).first();
      if (!row) throw new KeyNotFoundError(id);
      const apiKey = keyFromRow(row);
      if (revoked > 0) {
        await writeAudit(trx, { actor: audit.actor, action: 'key.revoke', target: id, accountId: apiKey.accountId, details: { name: apiKey.name, prefix: apiKey.prefix, last4: apiKey.last4 } }, at);
      }
      return apiKey;
    });
  }

  /**
   * The live key matching what a client presented, or null (unknown, malformed or revoked);
   * AccountDisabledError when it is live but its account is disabled.
   * `cached`: a key this process has seen live may be returned without a lookup — only for
   * requests whose hold re-checks the key (Ledger.hold with keyId).
   */
  async authenticate(presented: string, options: { cached?: boolean } = {}): Promise<ApiKey | null> {
    if (presented.length < 16 || presented.length > 256) return null;
    const hash = hashKey(presented);
    const known = options.cached ? this.liveByHash.get(hash) : undefined;
    if (known) {
      this.pendingLastUsed.set(known.id, this.now());
      return known;
    }
    const [row] = await hotStatements(this.db).run<KeyRow>(keyByHash, { hash });
    // Compare in constant time anyway: the lookup must not be the only thing standing
    // between a near-miss and a match (collation, truncation, a future prefix index).
    if (!row || !timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    if (row.revoked_at !== null) {
      this.liveByHash.delete(hash);
      return null;
    }
    if (row.account_disabled_at !== null && row.account_disabled_at !== undefined) {
      this.liveByHash.delete(hash);
      throw new AccountDisabledError(row.id, row.account_id);
    }
    this.pendingLastUsed.set(row.id, this.now());
    const apiKey = keyFromRow(row);
    if (this.liveByHash.size >= cachedKeysLimit) this.liveByHash.clear();
    this.liveByHash.set(hash, apiKey);
    return apiKey;
  }

  /** Records a use of a key found without `authenticate` (the web cabinet's key, src/cabinet/cabinet-key.ts): written with the next flush. */
  noteUsed(keyId: string): void {
    this.pendingLastUsed.set(keyId, this.now());
  }

  /** Drops a key from the cache (its hold found it revoked). */
  forget(keyId: string): void {
    for (const [hash, apiKey] of this.liveByHash) if (apiKey.id === keyId) this.liveByHash.delete(hash);
  }

  /** Whether the key is unrevoked and its account enabled now (for a cached key's request that places no hold: a free model). */
  isLive(keyId: string): Promise<boolean> {
    return keyIsLive(this.db, keyId);
  }

  /** Why the key may not be used now (revoked, account disabled; changed since `revision`), or null. */
  refusal(keyId: string, revision?: number): Promise<KeyNotLiveError | AccountDisabledError | KeyChangedError | null> {
    return keyRefusal(this.db, keyId, revision);
  }

  /** Writes the remembered last-use times in one transaction. Called on an interval and at stop. */
  async flushLastUsed(): Promise<number> {
    if (this.pendingLastUsed.size === 0) return 0;
    const batch = [...this.pendingLastUsed];
    this.pendingLastUsed.clear();
    await this.db.transaction(async (trx) => {
      for (const [id, at] of batch) await trx('api_keys').where({ id }).update({ last_used_at: at });
    });
    return batch.length;
  }
}
