// Managing who acts for an account (docs/cabinet.md, "Members"): an owner invites people by
// email as `owner` or `member` (a single-use `join_account` email link, email-tokens.ts), changes
// a member's role and removes members; the invited person joins with the link, as the user they
// are logged in as or as a new user with a password. Every change is audited with the user who
// made it. An account keeps at least one owner: the last owner can be neither demoted nor
// removed (the account row is locked first on PostgreSQL; SQLite's transactions begin IMMEDIATE,
// so two owners removing each other at once cannot both win). Removing a member ends their
// sessions on that account in the same transaction.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { hashSecret, isSecretOf } from '../cabinet/secret-tokens.js';
import { isPostgres } from '../db/dialect.js';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AccountMembers, MemberRole } from './account-members.js';
import type { EmailTokens } from './email-tokens.js';
import { normalizeEmail, userFromRow, type User, type UserLocale, type UserRow, type Users } from './users.js';

/** A member as the members page shows them: the membership and the user's address and name. */
export interface MemberListing {
  readonly userId: string;
  readonly email: string | null;
  readonly name: string | null;
  readonly role: MemberRole;
  readonly joinedAt: number;
  readonly disabledAt: number | null;
}

/** A join link sent and not yet followed (nor expired). */
export interface PendingInvitation {
  readonly id: string;
  readonly email: string;
  readonly role: MemberRole;
  readonly createdBy: string;
  readonly expiresAt: number;
}

export class MemberNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly userId: string) {
    super(`no member "${userId}" in this account`);
    this.name = 'MemberNotFoundError';
  }
}

/** Demoting or removing the account's only owner: an account keeps at least one. */
export class LastOwnerError extends DomainError {
  override readonly catalogCode = 'last_owner';

  constructor() {
    super('an account keeps at least one owner: make another member an owner first');
    this.name = 'LastOwnerError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, 'An account keeps at least one owner: make another member an owner first. Nothing was changed.');
  }
}

/** The invited address (or the joining user) is a member of the account already. */
export class AlreadyMemberError extends DomainError {
  override readonly catalogCode = 'already_member';

  constructor(readonly who: string) {
    super(`${who} is already a member of this account`);
    this.name = 'AlreadyMemberError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, `${this.message[0]!.toUpperCase()}${this.message.slice(1)}.`);
  }
}

/**
 * A join link followed without a session, for an address that already has a user: that person
 * logs in first and follows the link again (a link must not set the password of an existing user).
 */
export class JoinNeedsLoginError extends DomainError {
  override readonly catalogCode = 'join_login_required';

  constructor() {
    super('this address already has a user: log in first, then open the invitation link again');
    this.name = 'JoinNeedsLoginError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, 'This address already has a user: log in first, then open the invitation link again. The link is still valid.');
  }
}

export class Memberships {
  constructor(
    private readonly db: Knex,
    private readonly services: { readonly users: Users; readonly members: AccountMembers; readonly emailTokens: EmailTokens },
    private readonly now: () => number,
  ) {}

  /** Locks the account's row for the transaction (PostgreSQL), so owner counts cannot race. */
  private async lockAccount(trx: Knex.Transaction, accountId: string): Promise<void> {
    const query = trx('accounts').where({ id: accountId }).first('id');
    if (isPostgres(trx)) query.forUpdate();
    await query;
  }

  private async ownerCount(trx: Knex.Transaction, accountId: string): Promise<number> {
    const row = (await trx('account_members').where({ account_id: accountId, role: 'owner' }).count({ count: '*' }).first()) as { count: string | number };
    return Number(row.count);
  }

  async list(accountId: string): Promise<MemberListing[]> {
    const rows: (UserRow & { role: string; joined_at: string | number })[] = await this.db('account_members as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('m.account_id', accountId)
      .select('u.*', 'm.role', 'm.created_at as joined_at')
      .orderBy('m.role', 'desc')
      .orderBy('m.created_at')
      .orderBy('u.id');
    return rows.map((row) => {
      const user = userFromRow(row);
      return { userId: user.id, email: user.email, name: user.name, role: row.role === 'owner' ? 'owner' : 'member', joinedAt: Number(row.joined_at), disabledAt: user.disabledAt };
    });
  }

  async pendingInvitations(accountId: string): Promise<PendingInvitation[]> {
    const rows: { id: string; email: string; role: string | null; created_by: string; expires_at: string | number }[] = await this.db('email_tokens')
      .where({ purpose: 'join_account', account_id: accountId })
      .whereNull('used_at')
      .where('expires_at', '>', this.now())
      .orderBy('created_at')
      .orderBy('id')
      .select('id', 'email', 'role', 'created_by', 'expires_at');
    return rows.map((row) => ({ id: row.id, email: row.email, role: row.role === 'owner' ? 'owner' : 'member', createdBy: row.created_by, expiresAt: Number(row.expires_at) }));
  }

  /**
   * Whether a join link could still be followed (known, unused, unexpired): checked before a
   * stranger's password is hashed, so a wrong link costs no scrypt work. The join's own
   * conditional UPDATE stays the check that counts.
   */
  async joinLinkPending(token: unknown): Promise<boolean> {
    if (!isSecretOf('gwe_', token)) return false;
    const row = await this.db('email_tokens').where({ token_hash: hashSecret(token), purpose: 'join_account' }).whereNull('used_at').where('expires_at', '>', this.now()).first('id');
    return row !== undefined;
  }

  /**
   * Issues a join link for `email` with `role` (audited as member.invite) and hands it to
   * `deliver` inside the transaction: when delivery fails (the SMTP server refuses), nothing is
   * kept. AlreadyMemberError when the address's user is a member already.
   */
  async invite(
    invitation: { accountId: string; email: string; role: MemberRole; actor: string },
    deliver: (link: { token: string; expiresAt: number }) => Promise<void>,
  ): Promise<{ token: string; expiresAt: number }> {
    const email = normalizeEmail(invitation.email);
    return this.db.transaction(async (trx) => {
      const existing = await this.services.users.findByEmail(email, trx);
      if (existing && (await this.services.members.roleOf(invitation.accountId, existing.user.id, trx)) !== undefined) throw new AlreadyMemberError(email);
      const link = await this.services.emailTokens.issue({ purpose: 'join_account', email, accountId: invitation.accountId, role: invitation.role, createdBy: invitation.actor }, trx);
      await writeAudit(trx, { actor: invitation.actor, action: 'member.invite', target: email, accountId: invitation.accountId, details: { email, role: invitation.role } }, this.now());
      await deliver(link);
      return link;
    });
  }

  /**
   * Joins the account a link invites to, as `userId` (a logged-in user, whatever their address),
   * with the link's role. The link is spent only by a join that happens.
   */
  async joinAsUser(token: unknown, userId: string): Promise<{ accountId: string; role: MemberRole }> {
    return this.db.transaction(async (trx) => {
      const link = await this.services.emailTokens.consume(trx, 'join_account', token);
      const accountId = link.accountId!;
      const role = link.role ?? 'member';
      if ((await this.services.members.roleOf(accountId, userId, trx)) !== undefined) throw new AlreadyMemberError('you are');
      await this.services.members.add(trx, { accountId, userId, role, createdBy: link.createdBy });
      await writeAudit(trx, { actor: `user:${userId}`, action: 'member.join', target: userId, accountId, details: { role, invited_by: link.createdBy, new_user: false } }, this.now());
      return { accountId, role };
    });
  }

  /**
   * Joins as a new user with the link's address and a password (no account of their own, no
   * bonus: this is not a sign-up). `open` runs in the same transaction (the route opens the
   * session there), so a join either happens whole or leaves the link unused.
   */
  async joinAsNewUser<T>(
    token: unknown,
    fields: { passwordHash: string; name: string | null; locale: UserLocale; emailVerified: boolean },
    open: (trx: Knex.Transaction, joined: { user: User; accountId: string; role: MemberRole }) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction(async (trx) => {
      const link = await this.services.emailTokens.consume(trx, 'join_account', token);
      if (await this.services.users.findByEmail(link.email, trx)) throw new JoinNeedsLoginError();
      const accountId = link.accountId!;
      const role = link.role ?? 'member';
      const user = await this.services.users.insert(trx, { email: link.email, emailVerified: fields.emailVerified, passwordHash: fields.passwordHash, name: fields.name, locale: fields.locale });
      await this.services.members.add(trx, { accountId, userId: user.id, role, createdBy: link.createdBy });
      await writeAudit(trx, { actor: `user:${user.id}`, action: 'member.join', target: user.id, accountId, details: { role, invited_by: link.createdBy, new_user: true } }, this.now());
      return open(trx, { user, accountId, role });
    });
  }

  /** Changes a member's role (audited as member.role); LastOwnerError for the only owner's demotion. */
  async changeRole(change: { accountId: string; userId: string; role: MemberRole; actor: string }): Promise<{ role: MemberRole; changed: boolean }> {
    return this.db.transaction(async (trx) => {
      await this.lockAccount(trx, change.accountId);
      const current = await this.services.members.roleOf(change.accountId, change.userId, trx);
      if (current === undefined) throw new MemberNotFoundError(change.userId);
      if (current === change.role) return { role: current, changed: false };
      if (current === 'owner' && (await this.ownerCount(trx, change.accountId)) <= 1) throw new LastOwnerError();
      await trx('account_members').where({ account_id: change.accountId, user_id: change.userId }).update({ role: change.role });
      await writeAudit(trx, { actor: change.actor, action: 'member.role', target: change.userId, accountId: change.accountId, details: { from: current, to: change.role } }, this.now());
      return { role: change.role, changed: true };
    });
  }

  /**
   * Removes a member (audited as member.remove) and ends their sessions on this account;
   * LastOwnerError for the only owner. Returns how many sessions were ended.
   */
  async remove(removal: { accountId: string; userId: string; actor: string }): Promise<{ sessionsEnded: number }> {
    return this.db.transaction(async (trx) => {
      await this.lockAccount(trx, removal.accountId);
      const current = await this.services.members.roleOf(removal.accountId, removal.userId, trx);
      if (current === undefined) throw new MemberNotFoundError(removal.userId);
      if (current === 'owner' && (await this.ownerCount(trx, removal.accountId)) <= 1) throw new LastOwnerError();
      await trx('account_members').where({ account_id: removal.accountId, user_id: removal.userId }).delete();
      const now = this.now();
      const sessionsEnded = await trx('cabinet_sessions').where({ user_id: removal.userId, account_id: removal.accountId }).whereNull('revoked_at').update({ revoked_at: now });
      await writeAudit(trx, { actor: removal.actor, action: 'member.remove', target: removal.userId, accountId: removal.accountId, details: { role: current, sessions_ended: sessionsEnded } }, now);
      return { sessionsEnded };
    });
  }
}
