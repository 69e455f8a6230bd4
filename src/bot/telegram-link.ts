// Who a Telegram user is in the gateway (docs/bot.md, "Who the user is"). The link is the
// user's outside identity (provider `telegram`, subject the Telegram user id) in
// user_identities: the same row the cabinet's Telegram login makes, so a user who ever logged
// into the cabinet with Telegram is linked already, and a bot stranger who signs up can later
// log into the cabinet with Telegram. The account the bot acts for is the user's first
// membership (the one a login opens).
// - A stranger, with `cabinet.signup: open`, signs up through the one sign-up path (bonus and
//   audit as any sign-up); otherwise the bot explains how to link.
// - Linking from the cabinet: a one-time token (gwt_…, stored as its sha256, expiring after
//   cabinet.link_ttl) in a deep link https://t.me/<bot>?start=<token>. Redeeming marks it used
//   with a conditional UPDATE (the check that it was unused) and links the identity in the same
//   transaction.
// - Unlinking, from the cabinet or with /unlink: the identity row goes (audited as identity.unlink).
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { hashSecret, isSecretOf, newSecret } from '../cabinet/secret-tokens.js';
import { SignupClosedError, InviteRequiredError } from '../users/sign-up.js';
import type { UserServices } from '../users/user-services.js';
import type { User, UserLocale } from '../users/users.js';
import { newId } from '../util/ids.js';

export const telegramProvider = 'telegram';

export interface TelegramPerson {
  readonly id: number;
  readonly firstName: string;
  readonly lastName?: string;
  readonly username?: string;
}

export interface LinkedAccount {
  readonly user: User;
  readonly accountId: string;
}

export type FindResult = { readonly found: LinkedAccount } | { readonly refused: 'not_linked' | 'user_disabled' | 'no_account' };

export type RedeemResult = 'linked' | 'invalid' | 'taken';

export class TelegramLinks {
  constructor(
    private readonly db: Knex,
    private readonly users: UserServices,
    private readonly linkTtlMs: number,
    private readonly now: () => number,
  ) {}

  /** The user and account linked to this Telegram user, or why there is none to act for. */
  async find(telegramId: number): Promise<FindResult> {
    const user = await this.users.users.findByIdentity(telegramProvider, String(telegramId));
    if (!user) return { refused: 'not_linked' };
    if (user.disabledAt !== null) return { refused: 'user_disabled' };
    const [membership] = await this.users.members.ofUser(user.id);
    if (!membership) return { refused: 'no_account' };
    return { found: { user, accountId: membership.accountId } };
  }

  /** A new user and account for a stranger (`cabinet.signup: open`); undefined when sign-up is not open to them. */
  async signUp(person: TelegramPerson, locale: UserLocale): Promise<LinkedAccount | undefined> {
    if (this.users.signUps.signupMode !== 'open') return undefined;
    const name = [person.firstName, person.lastName].filter(Boolean).join(' ') || null;
    try {
      const { user, account } = await this.users.signUps.signUp({
        email: null,
        emailVerified: false,
        passwordHash: null,
        name,
        locale,
        identity: { provider: telegramProvider, subject: String(person.id), email: null },
      });
      return { user, accountId: account.id };
    } catch (error) {
      if (error instanceof SignupClosedError || error instanceof InviteRequiredError) return undefined;
      // Two /start at once: the identity's unique index refused the second sign-up (nothing of it was kept).
      if (/unique|duplicate/i.test((error as Error).message)) {
        const again = await this.find(person.id);
        if ('found' in again) return again.found;
      }
      throw error;
    }
  }

  /** A one-time token for the cabinet's "Connect Telegram" deep link, for this user. */
  async createToken(userId: string): Promise<{ token: string; expiresAt: number }> {
    const token = newSecret('gwt_');
    const now = this.now();
    const expiresAt = now + this.linkTtlMs;
    await this.db('bot_link_tokens').insert({ id: newId('btl'), token_hash: hashSecret(token), user_id: userId, created_at: now, expires_at: expiresAt, used_at: null });
    return { token, expiresAt };
  }

  /** Follows a deep link's token: links this Telegram user to the token's user. */
  async redeem(token: string, telegramId: number): Promise<RedeemResult> {
    if (!isSecretOf('gwt_', token)) return 'invalid';
    const now = this.now();
    return this.db.transaction(async (trx) => {
      const row: { id: string; user_id: string } | undefined = await trx('bot_link_tokens').where({ token_hash: hashSecret(token) }).whereNull('used_at').where('expires_at', '>', now).first('id', 'user_id');
      if (!row) return 'invalid';
      const owner = await trx('user_identities').where({ provider: telegramProvider, subject: String(telegramId) }).first('user_id');
      if (owner && owner.user_id !== row.user_id) return 'taken';
      const used = await trx('bot_link_tokens').where({ id: row.id }).whereNull('used_at').update({ used_at: now });
      if (used !== 1) return 'invalid';
      if (!owner) {
        // A user links one Telegram: a link made from the cabinet replaces the one they had.
        await trx('user_identities').where({ provider: telegramProvider, user_id: row.user_id }).delete();
        await this.users.users.linkIdentity(trx, row.user_id, { provider: telegramProvider, subject: String(telegramId), email: null }, `user:${row.user_id}`);
      }
      return 'linked';
    });
  }

  /** Removes the user's Telegram link (either side may); false when there was none. */
  async unlinkUser(userId: string, actor: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const removed = await trx('user_identities').where({ provider: telegramProvider, user_id: userId }).delete();
      if (removed > 0) await writeAudit(trx, { actor, action: 'identity.unlink', target: userId, accountId: null, details: { provider: telegramProvider } }, this.now());
      return removed > 0;
    });
  }

  /** The Telegram user id linked to this user, if any (the cabinet shows it). */
  async linkedTelegramId(userId: string): Promise<string | undefined> {
    const row: { subject: string } | undefined = await this.db('user_identities').where({ provider: telegramProvider, user_id: userId }).first('subject');
    return row?.subject;
  }
}
