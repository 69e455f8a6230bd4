// Admin tokens: bearer credentials for the admin API (`Authorization: Bearer gwa_…`), for an
// operator's scripts. Made by `gateway admin tokens create` (the secret printed once), stored
// as their sha256, revoked by `gateway admin tokens revoke` — refused from the next request.
// Both changes are audited. last_used_at is written at most once a minute per token.
// Each token carries its scopes (admin-scopes.ts), fixed at creation: the admin API refuses a
// route whose scope the token lacks. Tokens older than scopes were given all of them.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { optionalNumber } from '../db/row-values.js';
import { DomainError } from '../errors/domain-error.js';
import { allAdminScopes, type AdminScope, InvalidAdminScopeError, storedAdminScopes } from './admin-scopes.js';
import { newId } from '../util/ids.js';
import { hashSecret, isSecretOf, newSecret, sameHash } from './secret-tokens.js';

export interface AdminToken {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly last4: string;
  /** In canonical order (allAdminScopes). */
  readonly scopes: readonly AdminScope[];
  readonly createdBy: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

interface AdminTokenRow {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  last4: string;
  scopes: string;
  created_by: string;
  created_at: string | number;
  last_used_at: string | number | null;
  revoked_at: string | number | null;
}

function fromRow(row: AdminTokenRow): AdminToken {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: storedAdminScopes(row.scopes),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    lastUsedAt: optionalNumber(row.last_used_at),
    revokedAt: optionalNumber(row.revoked_at),
  };
}

export class AdminTokenNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';
  override readonly seenIn = 'cli';

  constructor(readonly tokenId: string) {
    super(`no admin token "${tokenId}"`);
    this.name = 'AdminTokenNotFoundError';
  }
}

export class InvalidAdminTokenNameError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';
}

/** last_used_at is moved forward only when it is at least this old. */
const lastUsedResolutionMs = 60_000;

export class AdminTokens {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  /**
   * Makes a token (audited with its name and scopes): the secret exists in full only in what
   * this returns. Scopes default to all of them, as before scopes existed.
   */
  async create(options: { name: string; scopes?: readonly AdminScope[]; actor: string }): Promise<{ adminToken: AdminToken; token: string }> {
    if (!/^[\p{L}\p{N}][\p{L}\p{N} ._@:-]{0,199}$/u.test(options.name)) {
      throw new InvalidAdminTokenNameError(`"${options.name}" is not a usable token name: 1-200 letters, digits, spaces or ._@:- , starting with a letter or digit`);
    }
    // Canonical order, once each, whatever order the caller gave.
    const scopes = allAdminScopes.filter((scope) => (options.scopes ?? allAdminScopes).includes(scope));
    if (scopes.length === 0) throw new InvalidAdminScopeError(`an admin token needs at least one scope; choose from ${allAdminScopes.join(', ')}`);
    const token = newSecret('gwa_');
    const now = this.now();
    const row: AdminTokenRow = {
      id: newId('adm'),
      name: options.name,
      prefix: 'gwa_',
      hash: hashSecret(token),
      last4: token.slice(-4),
      scopes: scopes.join(','),
      created_by: options.actor,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    };
    await this.db.transaction(async (trx) => {
      await trx('admin_tokens').insert(row);
      await writeAudit(trx, { actor: options.actor, action: 'admin_token.create', target: row.id, accountId: null, details: { name: options.name, scopes } }, now);
    });
    return { adminToken: fromRow(row), token };
  }

  async list(): Promise<AdminToken[]> {
    return ((await this.db('admin_tokens').select('*').orderBy('created_at').orderBy('id')) as AdminTokenRow[]).map(fromRow);
  }

  /** Revokes a token (audited); revoking twice keeps the first time and writes no second row. */
  async revoke(id: string, actor: string): Promise<AdminToken> {
    return this.db.transaction(async (trx) => {
      const row: AdminTokenRow | undefined = await trx('admin_tokens').where({ id }).first();
      if (!row) throw new AdminTokenNotFoundError(id);
      if (row.revoked_at === null) {
        const now = this.now();
        await trx('admin_tokens').where({ id }).update({ revoked_at: now });
        await writeAudit(trx, { actor, action: 'admin_token.revoke', target: id, accountId: null, details: { name: row.name } }, now);
        row.revoked_at = now;
      }
      return fromRow(row);
    });
  }

  /** The live token a client presented, or null (malformed, unknown or revoked). */
  async authenticate(presented: string): Promise<AdminToken | null> {
    if (!isSecretOf('gwa_', presented)) return null;
    const hash = hashSecret(presented);
    const row: AdminTokenRow | undefined = await this.db('admin_tokens').where({ hash }).first();
    if (!row || !sameHash(row.hash, hash) || row.revoked_at !== null) return null;
    const now = this.now();
    if (row.last_used_at === null || now - Number(row.last_used_at) >= lastUsedResolutionMs) {
      await this.db('admin_tokens').where({ id: row.id }).update({ last_used_at: now });
      row.last_used_at = now;
    }
    return fromRow(row);
  }
}
