// Sign-up invite codes (`gateway invites create`, the admin API): with `cabinet.signup: invite`
// a new account needs one, and each code works once. The code (gwi_…) is printed once; the
// database keeps its sha256 and its last four characters (to tell codes apart in a list).
// Spending a code is one conditional UPDATE inside the sign-up's transaction: two sign-ups
// racing with one code cannot both win, and a sign-up that fails leaves the code unspent.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { hashSecret, isSecretOf, newSecret } from '../cabinet/secret-tokens.js';
import { optionalNumber } from '../db/row-values.js';
import { DomainError } from '../errors/domain-error.js';
import { newId } from '../util/ids.js';

export interface Invite {
  readonly id: string;
  readonly last4: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly usedAt: number | null;
  readonly usedBy: string | null;
  readonly revokedAt: number | null;
}

interface InviteRow {
  id: string;
  code_hash: string;
  last4: string;
  created_by: string;
  created_at: string | number;
  expires_at: string | number | null;
  used_at: string | number | null;
  used_by: string | null;
  revoked_at: string | number | null;
}

const fromRow = (row: InviteRow): Invite => ({
  id: row.id,
  last4: row.last4,
  createdBy: row.created_by,
  createdAt: Number(row.created_at),
  expiresAt: optionalNumber(row.expires_at),
  usedAt: optionalNumber(row.used_at),
  usedBy: row.used_by,
  revokedAt: optionalNumber(row.revoked_at),
});

/** Unknown, expired, revoked or already used: one error. */
export class InviteInvalidError extends Error {
  constructor() {
    super('this invite code is invalid, expired or already used');
    this.name = 'InviteInvalidError';
  }
}

export class InviteNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly id: string) {
    super(`no invite "${id}"`);
    this.name = 'InviteNotFoundError';
  }
}

/** At most this many codes in one `create` (one transaction). */
export const maxInvitesAtOnce = 1000;

export class Invites {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  /** `count` new codes, each valid until `expiresAt` (null: no end), audited. The codes exist in full only in what this returns. */
  async create(options: { count: number; expiresAt: number | null; actor: string; /** The creation time (default now): the instant a relative expiry (30d) was computed from, so it is exact. */ at?: number }): Promise<{ invite: Invite; code: string }[]> {
    const now = options.at ?? this.now();
    const made = Array.from({ length: options.count }, () => {
      const code = newSecret('gwi_');
      const row: InviteRow = { id: newId('inv'), code_hash: hashSecret(code), last4: code.slice(-4), created_by: options.actor, created_at: now, expires_at: options.expiresAt, used_at: null, used_by: null, revoked_at: null };
      return { row, code };
    });
    await this.db.transaction(async (trx) => {
      for (const { row } of made) {
        await trx('invites').insert(row);
        await writeAudit(trx, { actor: options.actor, action: 'invite.create', target: row.id, accountId: null, details: { expires_at: row.expires_at === null ? null : new Date(Number(row.expires_at)).toISOString() } }, now);
      }
    });
    return made.map(({ row, code }) => ({ invite: fromRow(row), code }));
  }

  async list(filter: { all?: boolean } = {}): Promise<Invite[]> {
    const query = this.db('invites').orderBy('created_at').orderBy('id');
    if (!filter.all) query.whereNull('used_at').whereNull('revoked_at').where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.now()));
    return ((await query) as InviteRow[]).map(fromRow);
  }

  async revoke(id: string, actor: string): Promise<Invite> {
    return this.db.transaction(async (trx) => {
      const row: InviteRow | undefined = await trx('invites').where({ id }).first();
      if (!row) throw new InviteNotFoundError(id);
      if (row.revoked_at === null && row.used_at === null) {
        const now = this.now();
        await trx('invites').where({ id }).update({ revoked_at: now });
        await writeAudit(trx, { actor, action: 'invite.revoke', target: id, accountId: null, details: {} }, now);
        row.revoked_at = now;
      }
      return fromRow(row);
    });
  }

  /**
   * Whether a code would be accepted now, without spending it: a sign-up of an address that
   * already has a user spends nothing, yet must refuse a wrong code as a new address's would.
   */
  async isUsable(code: unknown): Promise<boolean> {
    if (!isSecretOf('gwi_', code)) return false;
    const row = await this.db('invites')
      .where({ code_hash: hashSecret(code) })
      .whereNull('used_at')
      .whereNull('revoked_at')
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.now()))
      .first('id');
    return row !== undefined;
  }

  /** Spends a code for `userId`, in the sign-up's transaction; InviteInvalidError when it cannot be. */
  async consume(trx: Knex.Transaction, code: unknown, userId: string): Promise<Invite> {
    if (!isSecretOf('gwi_', code)) throw new InviteInvalidError();
    const codeHash = hashSecret(code);
    const now = this.now();
    const updated = await trx('invites')
      .where({ code_hash: codeHash })
      .whereNull('used_at')
      .whereNull('revoked_at')
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .update({ used_at: now, used_by: userId });
    if (updated !== 1) throw new InviteInvalidError();
    return fromRow(await trx('invites').where({ code_hash: codeHash }).first());
  }
}
