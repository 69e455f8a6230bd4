// Email and password accounts (docs/cabinet.md, "Sign-up and login"): sign-up with a
// verification link, login, password reset by a link, password change and email change. The
// HTTP routes (src/http/routes/cabinet-password.ts) only parse, limit the rate and map the
// errors below; everything a customer could learn from is decided here:
// - Nobody learns which addresses have an account. Sign-up of a known address answers like a
//   new one (its owner gets an "address in use" email instead of a link); a reset of an unknown
//   address answers like a known one; a login with an unknown address or a wrong password gets
//   one answer (an unconfirmed address, a disabled user or account are told apart only once
//   the password was right, which an outsider cannot get past). Each of these runs the scrypt
//   work once, against the decoy hash when there is no user, so the answers also take the
//   same time.
// - Emails are sent after the answer (queued, never awaited by it): the SMTP server's speed
//   cannot tell a known address from an unknown one, and a slow server does not hold the page.
// - A login always opens a new session (a new id and cookie); the browser's previous session
//   is ended by the route. A password change ends the user's other sessions; a reset ends all.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { writeAudit } from '../audit/audit-log.js';
import type { CabinetSession, CabinetSessions } from '../cabinet/sessions.js';
import type { Mailer } from '../email/mailer.js';
import { addressInUseEmail } from '../email/templates/address-in-use.js';
import { changeEmailEmail } from '../email/templates/change-email.js';
import type { RenderedEmail } from '../email/templates/email-template.js';
import { resetPasswordEmail } from '../email/templates/reset-password.js';
import { verifyEmail } from '../email/templates/verify-email.js';
import type { AccountMembers } from './account-members.js';
import { EmailTokenInvalidError, type EmailTokens } from './email-tokens.js';
import { InviteInvalidError, type Invites } from './invites.js';
import { decoyPasswordHash, hashPassword, verifyPassword } from './password.js';
import { SignupClosedError, InviteRequiredError, type SignUps } from './sign-up.js';
import { normalizeEmail, type User, type UserLocale, type Users } from './users.js';

/** Unknown email, wrong password, or a user without a password: one error, one message. */
export class LoginFailedError extends Error {
  constructor() {
    super('email or password is wrong');
    this.name = 'LoginFailedError';
  }
}

/** The password was right, but the address was never confirmed: a fresh link was sent. */
export class EmailNotVerifiedError extends Error {
  constructor() {
    super('this email address is not confirmed yet');
    this.name = 'EmailNotVerifiedError';
  }
}

/** The password was right, but the operator disabled the user. */
export class UserDisabledError extends Error {
  constructor() {
    super('this user is disabled');
    this.name = 'UserDisabledError';
  }
}

/** The password was right, but the user is a member of no account (every membership was removed). */
export class UserWithoutAccountError extends Error {
  constructor() {
    super('this user is not a member of any account');
    this.name = 'UserWithoutAccountError';
  }
}

/** The password was right, but the account the login lands in is disabled. */
export class LoginAccountDisabledError extends Error {
  constructor() {
    super('this account is disabled');
    this.name = 'LoginAccountDisabledError';
  }
}

/** A password change or email change whose current password is wrong (or a user who has none). */
export class CurrentPasswordWrongError extends Error {
  constructor() {
    super('the current password is wrong');
    this.name = 'CurrentPasswordWrongError';
  }
}

/** An email change confirmed after someone else took the address. */
export class EmailTakenError extends Error {
  constructor() {
    super('this address belongs to another user now');
    this.name = 'EmailTakenError';
  }
}

export { EmailTokenInvalidError, InviteInvalidError, InviteRequiredError, SignupClosedError };

export interface PasswordAccountServices {
  readonly db: Knex;
  readonly users: Users;
  readonly members: AccountMembers;
  readonly emailTokens: EmailTokens;
  readonly invites: Invites;
  readonly signUps: SignUps;
  /** Required: the routes refuse before calling here without one. */
  readonly mailer: Mailer;
  readonly sessions: CabinetSessions;
  readonly logger: Logger;
  readonly now: () => number;
  /** cabinet.public_url (no trailing slash): the links' origin. */
  readonly publicUrl: string;
  readonly emailLinkTtlMs: number;
}

export interface LoginClient {
  readonly userAgent: string | null;
  readonly address: string | null;
}

/** The audit log's name for an address nobody may read back: a prefix of its sha256 (failed logins of unknown addresses). */
export const emailDigest = (email: string) => createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 16);

export class PasswordAccounts {
  constructor(private readonly services: PasswordAccountServices) {}

  private link(page: 'verify' | 'reset', token: string): string {
    return `${this.services.publicUrl}/cabinet/${page}#token=${token}`;
  }

  /** Sends after the caller's answer; a failure is logged (the user id, never the address or the link). */
  private sendLater(to: string, email: RenderedEmail, userId: string | null): void {
    setImmediate(() => {
      this.services.mailer.send({ to, subject: email.subject, text: email.text }).catch((error: unknown) => {
        this.services.logger.warn({ user_id: userId, subject: email.subject, err: error instanceof Error ? error.message : String(error) }, 'an email could not be sent');
      });
    });
  }

  private sendAddressInUse(user: User): void {
    const loginUrl = `${this.services.publicUrl}/cabinet/login`;
    const resetUrl = `${this.services.publicUrl}/cabinet/forgot`;
    this.sendLater(user.email!, addressInUseEmail({ loginUrl, resetUrl, locale: user.locale }), user.id);
  }

  private async sendVerification(user: User, trx?: Knex.Transaction): Promise<void> {
    const { token } = await this.services.emailTokens.issue({ purpose: 'verify_email', email: user.email!, userId: user.id, createdBy: `user:${user.id}` }, trx);
    this.sendLater(user.email!, verifyEmail({ link: this.link('verify', token), ttlMs: this.services.emailLinkTtlMs, locale: user.locale }), user.id);
  }

  /**
   * Sign-up by email. A new address gets a user, an account (sign-up.ts) and a verification
   * link; a known address only an "address in use" email. Both return the same nothing, after
   * the same scrypt work. SignupClosedError, InviteRequiredError and InviteInvalidError come
   * first and alike for both (a wrong code is refused whether or not the address is known).
   */
  async signUp(request: { email: string; password: string; inviteCode?: string; referralCode?: string; locale: UserLocale }): Promise<void> {
    const { signUps, users, invites } = this.services;
    if (signUps.signupMode === 'closed') throw new SignupClosedError();
    if (signUps.signupMode === 'invite' && !request.inviteCode) throw new InviteRequiredError();
    const passwordHash = await hashPassword(request.password);
    const existing = await users.findByEmail(request.email);
    if (existing) {
      if (signUps.signupMode === 'invite' && !(await invites.isUsable(request.inviteCode))) throw new InviteInvalidError();
      this.sendAddressInUse(existing.user);
      return;
    }
    let user: User;
    try {
      ({ user } = await signUps.signUp({ email: normalizeEmail(request.email), emailVerified: false, passwordHash, name: null, locale: request.locale, inviteCode: request.inviteCode, referralCode: request.referralCode }));
    } catch (error) {
      // Two sign-ups of one address at once: the second loses on the unique email and is answered like any known address.
      const raced = error instanceof InviteInvalidError ? undefined : await users.findByEmail(request.email);
      if (!raced) throw error;
      this.sendAddressInUse(raced.user);
      return;
    }
    await this.sendVerification(user);
  }

  /**
   * Follows a link sent by email: a sign-up's verification (the address is confirmed) or an
   * email change's (the address changes now). Either way the token is spent; EmailTokenInvalidError when it cannot be.
   */
  async followEmailLink(token: unknown): Promise<{ purpose: 'verify_email' | 'change_email'; email: string }> {
    const { db, emailTokens, now } = this.services;
    return db.transaction(async (trx) => {
      let spent;
      try {
        spent = await emailTokens.consume(trx, 'verify_email', token);
      } catch (error) {
        if (!(error instanceof EmailTokenInvalidError)) throw error;
        spent = await emailTokens.consume(trx, 'change_email', token);
      }
      const userId = spent.userId!;
      const at = now();
      if (spent.purpose === 'verify_email') {
        // Only the address the link was sent to: an email changed since leaves this link confirming nothing.
        const updated = await trx('users').where({ id: userId, email: spent.email }).update({ email_verified_at: at });
        if (updated !== 1) throw new EmailTokenInvalidError();
        await writeAudit(trx, { actor: `user:${userId}`, action: 'user.verify_email', target: userId, accountId: null, details: {} }, at);
        return { purpose: 'verify_email', email: spent.email };
      }
      const holder = await trx('users').where({ email: spent.email }).whereNot({ id: userId }).first('id');
      if (holder) throw new EmailTakenError();
      await trx('users').where({ id: userId }).update({ email: spent.email, email_verified_at: at });
      await emailTokens.voidFor(userId, 'change_email', trx);
      // A reset link still in the old mailbox must not open the account any more.
      await emailTokens.voidFor(userId, 'reset_password', trx);
      await writeAudit(trx, { actor: `user:${userId}`, action: 'user.email_change', target: userId, accountId: null, details: {} }, at);
      return { purpose: 'change_email', email: spent.email };
    });
  }

  /**
   * Checks the password and opens a session in the user's first account (the oldest
   * membership). The caller has admitted the attempt under both rate limits. A failure is
   * audited (user.login_failed: the client's address, and the user or a digest of the email;
   * never the password).
   */
  async login(request: { email: string; password: string }, client: LoginClient): Promise<{ session: CabinetSession; cookieToken: string; user: User }> {
    const { db, users, members, sessions, now } = this.services;
    const found = await users.findByEmail(request.email);
    const passwordHash = found?.passwordHash ?? (await decoyPasswordHash());
    const right = (await verifyPassword(request.password, passwordHash)) && found?.passwordHash != null;
    const fail = async (reason: string, error: Error) => {
      await db.transaction((trx) =>
        writeAudit(trx, { actor: found ? `user:${found.user.id}` : 'anonymous', action: 'user.login_failed', target: found ? found.user.id : `email:${emailDigest(request.email)}`, accountId: null, details: { address: client.address, method: 'password', reason } }, now()),
      );
      throw error;
    };
    if (!found || !right) return fail(found ? 'wrong_password' : 'unknown_email', new LoginFailedError());
    const { user } = found;
    if (user.disabledAt !== null) return fail('user_disabled', new UserDisabledError());
    if (user.emailVerifiedAt === null) {
      await this.sendVerification(user);
      return fail('email_not_verified', new EmailNotVerifiedError());
    }
    const membership = (await members.ofUser(user.id))[0];
    if (!membership) return fail('no_account', new UserWithoutAccountError());
    try {
      return await db.transaction(async (trx) => {
        const opened = await sessions.openForUser({ accountId: membership.accountId, userId: user.id, method: 'password' }, client, trx);
        if (opened.session.accountDisabledAt !== null) throw new LoginAccountDisabledError();
        const at = now();
        await trx('users').where({ id: user.id }).update({ last_login_at: at });
        await writeAudit(trx, { actor: `user:${user.id}`, action: 'user.login', target: user.id, accountId: membership.accountId, details: { method: 'password', address: client.address, session_id: opened.session.id } }, at);
        return { ...opened, user };
      });
    } catch (error) {
      if (error instanceof LoginAccountDisabledError) return fail('account_disabled', error);
      throw error;
    }
  }

  /**
   * Sends a reset link when the address has a user; nothing otherwise. The same answer either
   * way, after the same scrypt work (a verification against the decoy hash: the work a login
   * costs, so the timing of both branches is the hash's).
   */
  async requestReset(email: string): Promise<void> {
    const { db, users, emailTokens, now } = this.services;
    await verifyPassword(email, await decoyPasswordHash());
    const found = await users.findByEmail(email);
    if (!found || found.user.disabledAt !== null) return;
    const { user } = found;
    const token = await db.transaction(async (trx) => {
      // A new link voids the older ones: only the latest email opens.
      await emailTokens.voidFor(user.id, 'reset_password', trx);
      const issued = await emailTokens.issue({ purpose: 'reset_password', email: user.email!, userId: user.id, createdBy: `user:${user.id}` }, trx);
      await writeAudit(trx, { actor: 'anonymous', action: 'user.password_reset_request', target: user.id, accountId: null, details: {} }, now());
      return issued.token;
    });
    this.sendLater(user.email!, resetPasswordEmail({ link: this.link('reset', token), ttlMs: this.services.emailLinkTtlMs, locale: user.locale }), user.id);
  }

  /**
   * Sets a new password from a reset link and ends ALL the user's sessions (whoever had the
   * old password is out). Following the link also proves the address: it counts as verified.
   */
  async confirmReset(token: unknown, password: string): Promise<void> {
    const { db, emailTokens, sessions, now } = this.services;
    const passwordHash = await hashPassword(password);
    await db.transaction(async (trx) => {
      const spent = await emailTokens.consume(trx, 'reset_password', token);
      const userId = spent.userId!;
      const at = now();
      const updated = await trx('users').where({ id: userId, email: spent.email }).update({ password_hash: passwordHash, password_changed_at: at, email_verified_at: trx.raw('coalesce(email_verified_at, ?)', [at]) });
      if (updated !== 1) throw new EmailTokenInvalidError();
      const ended = await sessions.endForUser(userId, { trx });
      await writeAudit(trx, { actor: `user:${userId}`, action: 'user.password_reset', target: userId, accountId: null, details: { sessions_ended: ended } }, at);
    });
  }

  private async checkCurrentPassword(userId: string, password: string): Promise<User> {
    const user = await this.services.users.find(userId);
    const found = user.email === null ? undefined : await this.services.users.findByEmail(user.email);
    const stored = found?.passwordHash ?? (await decoyPasswordHash());
    if (!(await verifyPassword(password, stored)) || !found?.passwordHash) throw new CurrentPasswordWrongError();
    return user;
  }

  /** A new password for the session's user (the current one given again); ends the user's OTHER sessions. */
  async changePassword(session: { id: string; userId: string; accountId: string | null }, current: string, next: string): Promise<{ sessionsEnded: number }> {
    const { db, emailTokens, sessions, now } = this.services;
    await this.checkCurrentPassword(session.userId, current);
    const passwordHash = await hashPassword(next);
    return db.transaction(async (trx) => {
      const at = now();
      await trx('users').where({ id: session.userId }).update({ password_hash: passwordHash, password_changed_at: at });
      await emailTokens.voidFor(session.userId, 'reset_password', trx);
      const ended = await sessions.endForUser(session.userId, { exceptId: session.id, trx });
      await writeAudit(trx, { actor: `user:${session.userId}`, action: 'user.password_change', target: session.userId, accountId: session.accountId, details: { sessions_ended: ended } }, at);
      return { sessionsEnded: ended };
    });
  }

  /**
   * Asks to move the session's user to `newEmail` (the current password given again): a
   * change_email link goes to the new address, and the address changes only when it is
   * followed (followEmailLink). An address that has a user already gets the "address in use"
   * email instead; the answer is the same.
   */
  async requestEmailChange(session: { userId: string }, newEmail: string, password: string): Promise<void> {
    const { users, emailTokens } = this.services;
    const user = await this.checkCurrentPassword(session.userId, password);
    const holder = await users.findByEmail(newEmail);
    if (holder) {
      if (holder.user.id !== user.id) this.sendAddressInUse(holder.user);
      return;
    }
    await emailTokens.voidFor(user.id, 'change_email');
    const { token } = await emailTokens.issue({ purpose: 'change_email', email: normalizeEmail(newEmail), userId: user.id, createdBy: `user:${user.id}` });
    this.sendLater(normalizeEmail(newEmail), changeEmailEmail({ link: this.link('verify', token), ttlMs: this.services.emailLinkTtlMs, locale: user.locale }), user.id);
  }
}
