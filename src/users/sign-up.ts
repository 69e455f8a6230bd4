// A new customer: one transaction makes the user, their account (they are its owner), spends
// the invite code (`cabinet.signup: invite`) and credits `cabinet.signup_bonus` as a `bonus`
// ledger row. All or nothing: a sign-up that fails leaves no user, no account, no spent code
// and no money. The bonus is the only money a sign-up creates, written once, in the
// transaction that creates the account it belongs to. Email, OIDC and Telegram sign-ups all
// come here (docs/cabinet.md, "Sign-up"). A referral code the visitor brought binds the new
// account to its referrer in the same transaction (when `referral` is configured); a code that
// cannot bind is noted in the audit row and the sign-up goes on without it (docs/payments.md,
// "Referrals").
import type { Knex } from 'knex';
import type { Account, Accounts } from '../accounts/accounts.js';
import { writeAudit } from '../audit/audit-log.js';
import type { Ledger } from '../billing/ledger.js';
import { formatRub } from '../util/money.js';
import type { ReferralConfig } from '../config/load.js';
import { signupBonusSource } from '../payments/credit-sources.js';
import { bindReferrer, type ReferralBinding } from '../referrals/referral-binding.js';
import type { AccountMembers } from './account-members.js';
import type { Invites } from './invites.js';
import type { User, UserLocale, Users } from './users.js';

export type SignupMode = 'closed' | 'invite' | 'open';

/** Sign-up is closed (`cabinet.signup: closed`): only the operator makes accounts. */
export class SignupClosedError extends Error {
  constructor() {
    super('sign-up is closed on this gateway');
    this.name = 'SignupClosedError';
  }
}

/** `cabinet.signup: invite` and no code given. (A wrong code is InviteInvalidError.) */
export class InviteRequiredError extends Error {
  constructor() {
    super('sign-up needs an invite code on this gateway');
    this.name = 'InviteRequiredError';
  }
}

export interface SignUpRequest {
  readonly email: string | null;
  /** Whether `email` is known to be the person's (an OIDC provider's verified email). Email sign-ups verify by link later. */
  readonly emailVerified: boolean;
  readonly passwordHash: string | null;
  readonly name: string | null;
  readonly locale: UserLocale;
  /** The outside login this user came by (OIDC, Telegram), linked in the same transaction. */
  readonly identity?: { readonly provider: string; readonly subject: string; readonly email: string | null };
  readonly inviteCode?: string;
  /** The referrer's code from the link the visitor came by (`?ref=`); ignored without `referral` in the config. */
  readonly referralCode?: string;
}

/** An account name from what the user gave: their email, else `<hint>`; letters, digits and ._@- only (accounts.ts's rule). */
export function accountNameFor(email: string | null, hint: string): string {
  const base = (email ?? hint).normalize('NFKC').replace(/[^\p{L}\p{N} ._@-]/gu, '-').replace(/^[^\p{L}\p{N}]+/u, '').slice(0, 180);
  return base.length > 0 && !base.startsWith('acc_') ? base : `user-${hint}`.slice(0, 180);
}

export class SignUps {
  constructor(
    private readonly db: Knex,
    private readonly mode: SignupMode,
    private readonly bonusUnits: bigint,
    private readonly services: { readonly users: Users; readonly members: AccountMembers; readonly accounts: Accounts; readonly invites: Invites; readonly ledger: Ledger },
    private readonly now: () => number,
    private readonly referral: ReferralConfig | undefined = undefined,
  ) {}

  get signupMode(): SignupMode {
    return this.mode;
  }

  /** Makes the user and their account; SignupClosedError, InviteRequiredError or InviteInvalidError before anything is kept. */
  async signUp(request: SignUpRequest): Promise<{ user: User; account: Account }> {
    if (this.mode === 'closed') throw new SignupClosedError();
    if (this.mode === 'invite' && !request.inviteCode) throw new InviteRequiredError();
    return this.db.transaction(async (trx) => {
      const { users, members, accounts, invites, ledger } = this.services;
      const user = await users.insert(trx, { email: request.email, emailVerified: request.emailVerified, passwordHash: request.passwordHash, name: request.name, locale: request.locale });
      const actor = `user:${user.id}`;
      if (this.mode === 'invite') await invites.consume(trx, request.inviteCode, user.id);
      if (request.identity) await users.linkIdentity(trx, user.id, request.identity, actor);
      const account = await accounts.create(await this.freeAccountName(trx, accountNameFor(user.email, user.id.slice(-8))), { actor, within: trx });
      await members.add(trx, { accountId: account.id, userId: user.id, role: 'owner', createdBy: actor });
      const at = this.now();
      let referral: ReferralBinding | undefined;
      if (this.referral !== undefined && request.referralCode) referral = await bindReferrer(trx, account.id, request.referralCode, at);
      const referralDetails = referral === undefined ? {} : referral.bound ? { referred_by: referral.referrerId } : { referral_refused: referral.reason };
      await writeAudit(trx, { actor, action: 'user.signup', target: user.id, accountId: account.id, details: { method: request.identity?.provider ?? 'email', invite: this.mode === 'invite', ...referralDetails } }, at);
      if (this.bonusUnits > 0n) {
        const { transactionId } = await ledger.credit(account.id, this.bonusUnits, 'bonus', { within: trx, description: 'sign-up bonus', source: signupBonusSource(user.id) });
        await writeAudit(trx, { actor, action: 'balance.topup', target: account.id, accountId: account.id, details: { kind: 'bonus', source: 'signup', amount_rub: formatRub(this.bonusUnits), transaction_id: transactionId } }, at);
      }
      return { user, account: { ...account, balanceUnits: this.bonusUnits } as Account };
    });
  }

  /** `name`, or `name-2`, `name-3`, … when taken (checked first: a unique violation would end a PostgreSQL transaction). */
  private async freeAccountName(trx: Knex.Transaction, name: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const candidate = attempt === 1 ? name : `${name}-${attempt}`;
      if (!(await trx('accounts').where({ name: candidate }).first('id'))) return candidate;
    }
  }
}
