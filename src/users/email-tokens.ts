// Single-use links sent by email: verify an address, reset a password, change an email, join
// an account. The token (gwe_…) travels only in the email; the database keeps its sha256. A
// token is followed at most once and only before it expires (cabinet.email_link_ttl): the
// UPDATE that marks it used is the check, so two clicks racing cannot both win.
import type { Knex } from 'knex';
import { hashSecret, isSecretOf, newSecret } from '../cabinet/secret-tokens.js';
import { newId } from '../util/ids.js';
import type { MemberRole } from './account-members.js';

export const emailTokenPurposes = ['verify_email', 'reset_password', 'change_email', 'join_account'] as const;
export type EmailTokenPurpose = (typeof emailTokenPurposes)[number];

export interface EmailToken {
  readonly id: string;
  readonly purpose: EmailTokenPurpose;
  readonly userId: string | null;
  readonly accountId: string | null;
  /** The address the link was sent to (for change_email: the new address). */
  readonly email: string;
  readonly role: MemberRole | null;
  readonly createdBy: string;
  readonly expiresAt: number;
}

interface EmailTokenRow {
  id: string;
  token_hash: string;
  purpose: string;
  user_id: string | null;
  account_id: string | null;
  email: string;
  role: string | null;
  created_by: string;
  created_at: string | number;
  expires_at: string | number;
  used_at: string | number | null;
}

/** Unknown, expired, already used or of another purpose: one error, so a guesser learns nothing. */
export class EmailTokenInvalidError extends Error {
  constructor() {
    super('this link is invalid, expired or already used');
    this.name = 'EmailTokenInvalidError';
  }
}

export class EmailTokens {
  constructor(
    private readonly db: Knex,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** A new token (in `trx` when given). Returns the token itself: put it in the email, never store it. */
  async issue(
    fields: { purpose: EmailTokenPurpose; email: string; userId?: string | null; accountId?: string | null; role?: MemberRole | null; createdBy: string },
    trx?: Knex.Transaction,
  ): Promise<{ token: string; expiresAt: number }> {
    const token = newSecret('gwe_');
    const now = this.now();
    const row: EmailTokenRow = {
      id: newId('etk'),
      token_hash: hashSecret(token),
      purpose: fields.purpose,
      user_id: fields.userId ?? null,
      account_id: fields.accountId ?? null,
      email: fields.email,
      role: fields.role ?? null,
      created_by: fields.createdBy,
      created_at: now,
      expires_at: now + this.ttlMs,
      used_at: null,
    };
    await (trx ?? this.db)('email_tokens').insert(row);
    return { token, expiresAt: Number(row.expires_at) };
  }

  /** Marks the token used, in the caller's transaction, and returns it; EmailTokenInvalidError when it cannot be. */
  async consume(trx: Knex.Transaction, purpose: EmailTokenPurpose, token: unknown): Promise<EmailToken> {
    if (!isSecretOf('gwe_', token)) throw new EmailTokenInvalidError();
    const tokenHash = hashSecret(token);
    const now = this.now();
    const updated = await trx('email_tokens').where({ token_hash: tokenHash, purpose }).whereNull('used_at').where('expires_at', '>', now).update({ used_at: now });
    if (updated !== 1) throw new EmailTokenInvalidError();
    const row: EmailTokenRow = await trx('email_tokens').where({ token_hash: tokenHash }).first();
    return {
      id: row.id,
      purpose,
      userId: row.user_id,
      accountId: row.account_id,
      email: row.email,
      role: row.role === null ? null : row.role === 'owner' ? 'owner' : 'member',
      createdBy: row.created_by,
      expiresAt: Number(row.expires_at),
    };
  }

  /** Spends every unused token of a purpose for a user (a new reset link voids the older ones; a password change voids resets). */
  async voidFor(userId: string, purpose: EmailTokenPurpose, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('email_tokens').where({ user_id: userId, purpose }).whereNull('used_at').update({ used_at: this.now() });
  }

  /** Removes tokens used or expired a day ago (the sweep's part). */
  async removeEnded(): Promise<number> {
    const before = this.now() - 86_400_000;
    return this.db('email_tokens').where((query) => query.where('used_at', '<', before).orWhere('expires_at', '<', before)).delete();
  }
}
