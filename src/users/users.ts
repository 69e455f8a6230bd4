// Users: the people who log in to the cabinet (migration 20261128200000_users). A user acts for
// the accounts they are a member of (account-members.ts). Emails are kept lowercased and
// trimmed, so one address is one user whatever its spelling.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { optionalNumber } from '../db/row-values.js';
import { DomainError } from '../errors/domain-error.js';
import { newId } from '../util/ids.js';

export type UserLocale = 'ru' | 'en';

export interface User {
  readonly id: string;
  readonly email: string | null;
  readonly emailVerifiedAt: number | null;
  readonly hasPassword: boolean;
  readonly passwordChangedAt: number | null;
  readonly name: string | null;
  readonly locale: UserLocale;
  readonly createdAt: number;
  readonly lastLoginAt: number | null;
  readonly disabledAt: number | null;
}

export interface UserRow {
  id: string;
  email: string | null;
  email_verified_at: string | number | null;
  password_hash: string | null;
  password_changed_at: string | number | null;
  name: string | null;
  locale: string;
  created_at: string | number;
  last_login_at: string | number | null;
  disabled_at: string | number | null;
}

export function userFromRow(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    emailVerifiedAt: optionalNumber(row.email_verified_at),
    hasPassword: row.password_hash !== null,
    passwordChangedAt: optionalNumber(row.password_changed_at),
    name: row.name,
    locale: row.locale === 'ru' ? 'ru' : 'en',
    createdAt: Number(row.created_at),
    lastLoginAt: optionalNumber(row.last_login_at),
    disabledAt: optionalNumber(row.disabled_at),
  };
}

/** The one spelling of an address that is stored and compared. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class UserNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly reference: string) {
    super(`no user "${reference}"`);
    this.name = 'UserNotFoundError';
  }
}

export class Users {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  /** A new user row in the caller's transaction (sign-up.ts makes its account and membership with it). */
  async insert(trx: Knex.Transaction, fields: { email: string | null; emailVerified: boolean; passwordHash: string | null; name: string | null; locale: UserLocale }): Promise<User> {
    const now = this.now();
    const row: UserRow = {
      id: newId('usr'),
      email: fields.email === null ? null : normalizeEmail(fields.email),
      email_verified_at: fields.emailVerified ? now : null,
      password_hash: fields.passwordHash,
      password_changed_at: fields.passwordHash === null ? null : now,
      name: fields.name,
      locale: fields.locale,
      created_at: now,
      last_login_at: null,
      disabled_at: null,
    };
    await trx('users').insert(row);
    return userFromRow(row);
  }

  async find(id: string, db: Knex | Knex.Transaction = this.db): Promise<User> {
    const row: UserRow | undefined = await db('users').where({ id }).first();
    if (!row) throw new UserNotFoundError(id);
    return userFromRow(row);
  }

  /** By id (usr_…) or email address, as the operator's CLI takes it; UserNotFoundError when neither matches. */
  async findByReference(reference: string): Promise<User> {
    if (!reference.includes('@')) return this.find(reference);
    const found = await this.findByEmail(reference);
    if (!found) throw new UserNotFoundError(reference);
    return found.user;
  }

  /** The user with this email and their password hash (for a login), or undefined. */
  async findByEmail(email: string, db: Knex | Knex.Transaction = this.db): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const row: UserRow | undefined = await db('users').where({ email: normalizeEmail(email) }).first();
    return row ? { user: userFromRow(row), passwordHash: row.password_hash } : undefined;
  }

  /** The user an outside identity (`oidc:<name>` or `telegram`, and its subject) belongs to. */
  async findByIdentity(provider: string, subject: string, db: Knex | Knex.Transaction = this.db): Promise<User | undefined> {
    const row: UserRow | undefined = await db('users as u').join('user_identities as i', 'i.user_id', 'u.id').where({ 'i.provider': provider, 'i.subject': subject }).select('u.*').first();
    return row ? userFromRow(row) : undefined;
  }

  /** Links an outside identity to a user, in the caller's transaction (audited as identity.link). */
  async linkIdentity(trx: Knex.Transaction, userId: string, identity: { provider: string; subject: string; email: string | null }, actor: string): Promise<void> {
    const now = this.now();
    await trx('user_identities').insert({ id: newId('idn'), user_id: userId, provider: identity.provider, subject: identity.subject, email: identity.email, created_at: now });
    await writeAudit(trx, { actor, action: 'identity.link', target: userId, accountId: null, details: { provider: identity.provider } }, now);
  }

  async list(filter: { accountId?: string } = {}): Promise<User[]> {
    const query = this.db('users as u').select('u.*').orderBy('u.created_at').orderBy('u.id');
    if (filter.accountId !== undefined) query.join('account_members as m', 'm.user_id', 'u.id').where('m.account_id', filter.accountId);
    return ((await query) as UserRow[]).map(userFromRow);
  }

  async noteLogin(userId: string): Promise<void> {
    await this.db('users').where({ id: userId }).update({ last_login_at: this.now() });
  }

  /**
   * Disables or enables a user (audited): a disabled user cannot log in, and their live sessions
   * are ended in the same transaction. The accounts they belong to keep working for others.
   */
  async setDisabled(userId: string, disabled: boolean, actor: string): Promise<User> {
    return this.db.transaction(async (trx) => {
      const user = await this.find(userId, trx);
      const now = this.now();
      if ((user.disabledAt !== null) === disabled) return user;
      await trx('users').where({ id: userId }).update({ disabled_at: disabled ? now : null });
      if (disabled) await trx('cabinet_sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
      await writeAudit(trx, { actor, action: disabled ? 'user.disable' : 'user.enable', target: userId, accountId: null, details: {} }, now);
      return { ...user, disabledAt: disabled ? now : null };
    });
  }
}
