// API keys: "<prefix>-<43 base64url chars>" carrying 256 random bits. Only the sha256 of the
// whole key, its prefix and its last 4 characters are stored. Lookups are by hash, a prepared
// hot statement (src/db/hot-statements.ts). A revocation (from the CLI, another process)
// holds on the very next request:
// - most routes look the key up on every request;
// - the chat routes (most traffic) may take it from this process's cache of keys seen live:
//   a key's only change after creation is its revocation, and their hold re-checks that in
//   the hold's own statement (Ledger.hold with keyId), so the cache saves a database round trip
//   per request without serving a revoked key past the hold. A revoked key found either way
//   leaves the cache.
// last_used_at is kept in memory and written in one batch per interval, not per request.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { hotStatements, type HotStatement } from '../db/hot-statements.js';
import { AccountDisabledError, KeyNotLiveError } from '../billing/errors.js';
import { newId } from '../util/ids.js';
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
  readonly createdAt: number;
  readonly revokedAt: number | null;
  readonly lastUsedAt: number | null;
}

export class KeyNotFoundError extends Error {
  constructor(readonly keyId: string) {
    super(`no API key "${keyId}"`);
    this.name = 'KeyNotFoundError';
  }
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  hash: string;
  last4: string;
  scopes: string;
  rpm: number | null;
  created_at: string | number;
  revoked_at: string | number | null;
  last_used_at: string | number | null;
  /** From the lookup's join: the key's account is disabled. */
  account_disabled_at?: string | number | null;
}

const optionalNumber = (value: string | number | null) => (value === null ? null : Number(value));

function fromRow(row: KeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: row.scopes.split(',').filter((s): s is Scope => (allScopes as readonly string[]).includes(s)),
    rpm: row.rpm === null ? null : Number(row.rpm),
    createdAt: Number(row.created_at),
    revokedAt: optionalNumber(row.revoked_at),
    lastUsedAt: optionalNumber(row.last_used_at),
  };
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
export async function keyRefusal(db: Knex, keyId: string): Promise<KeyNotLiveError | AccountDisabledError | null> {
  const row: { revoked_at: unknown; account_id: string; disabled_at: unknown } | undefined = await db('api_keys as k')
    .join('accounts as a', 'a.id', 'k.account_id')
    .where('k.id', keyId)
    .first('k.revoked_at', 'k.account_id', 'a.disabled_at');
  if (!row || row.revoked_at !== null) return new KeyNotLiveError(keyId);
  if (row.disabled_at !== null) return new AccountDisabledError(keyId, row.account_id);
  return null;
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

  /** Creates a key and returns it with its secret: the only time the secret exists in full. */
  async create(options: { accountId: string; scopes?: readonly Scope[]; name?: string | null; rpm?: number | null }): Promise<{ apiKey: ApiKey; key: string }> {
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
      created_at: this.now(),
      revoked_at: null,
      last_used_at: null,
    };
    await this.db('api_keys').insert(row);
    return { apiKey: fromRow(row), key };
  }

  async list(accountId?: string): Promise<ApiKey[]> {
    const query = this.db('api_keys').select('*').orderBy('created_at').orderBy('id');
    if (accountId) query.where({ account_id: accountId });
    return (await query).map(fromRow);
  }

  async find(id: string): Promise<ApiKey> {
    const row: KeyRow | undefined = await this.db('api_keys').select('*').where({ id }).first();
    if (!row) throw new KeyNotFoundError(id);
    return fromRow(row);
  }

  /** Revokes a key; revoking twice keeps the first revocation time. */
  async revoke(id: string): Promise<ApiKey> {
    await this.db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: this.now() });
    return this.find(id);
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
    const apiKey = fromRow(row);
    if (this.liveByHash.size >= cachedKeysLimit) this.liveByHash.clear();
    this.liveByHash.set(hash, apiKey);
    return apiKey;
  }

  /** Drops a key from the cache (its hold found it revoked). */
  forget(keyId: string): void {
    for (const [hash, apiKey] of this.liveByHash) if (apiKey.id === keyId) this.liveByHash.delete(hash);
  }

  /** Whether the key is unrevoked and its account enabled now (for a cached key's request that places no hold: a free model). */
  isLive(keyId: string): Promise<boolean> {
    return keyIsLive(this.db, keyId);
  }

  /** Why the key may not be used now (revoked, account disabled), or null. */
  refusal(keyId: string): Promise<KeyNotLiveError | AccountDisabledError | null> {
    return keyRefusal(this.db, keyId);
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
