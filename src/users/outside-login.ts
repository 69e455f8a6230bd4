// A login proven by someone else (an OpenID Connect provider, Telegram) becomes a user and a
// session here, the same way for both (docs/cabinet.md, "OpenID Connect" and "Telegram"):
// 1. the user whose identity it is (provider, subject);
// 2. else, when the provider says the email is verified, the user with that email, and the
//    identity is linked to them (an existing user is linked ONLY through a verified email);
// 3. else a new user signs up (cabinet.signup; in invite mode with the code the visitor brought;
//    bound to the referrer whose code the visitor brought, docs/payments.md "Referrals").
//    An email the provider did not verify is not taken as the new user's: it could be anyone's,
//    and the address may belong to an existing user who never proved this login.
// Then a new session (method oidc or telegram) for the user's first account, audited as user.login.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import type { CabinetSession, CabinetSessions } from '../cabinet/sessions.js';
import { InviteInvalidError } from './invites.js';
import { InviteRequiredError, SignupClosedError } from './sign-up.js';
import type { UserServices } from './user-services.js';
import type { User, UserLocale } from './users.js';

export interface OutsideIdentity {
  /** `oidc:<name>` or `telegram`. */
  readonly provider: string;
  readonly subject: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly name: string | null;
}

/** Why nobody is logged in; the route shows the login page's message for `reason`. */
export class OutsideLoginRefusedError extends Error {
  constructor(
    readonly reason: 'signup_closed' | 'invite_required' | 'invite_invalid' | 'user_disabled' | 'no_account',
    message: string,
  ) {
    super(message);
    this.name = 'OutsideLoginRefusedError';
  }
}

export interface OutsideLoginResult {
  readonly user: User;
  readonly session: CabinetSession;
  readonly cookieToken: string;
  /** How the user was found: by the identity, by linking it to a verified email, or made now. */
  readonly found: 'identity' | 'linked' | 'signed_up';
}

export async function logInFromOutside(
  services: { readonly db: Knex; readonly users: UserServices; readonly sessions: CabinetSessions; readonly now: () => number },
  identity: OutsideIdentity,
  options: { method: 'oidc' | 'telegram'; inviteCode: string | null; referralCode?: string | null; locale: UserLocale; client: { userAgent: string | null; address: string | null } },
): Promise<OutsideLoginResult> {
  const { users, members, signUps } = services.users;
  let found: OutsideLoginResult['found'] = 'identity';
  let user = await users.findByIdentity(identity.provider, identity.subject);
  if (!user && identity.email !== null && identity.emailVerified) {
    const byEmail = await users.findByEmail(identity.email);
    if (byEmail) {
      user = byEmail.user;
      found = 'linked';
      const linkedUser = user;
      await services.db.transaction((trx) => users.linkIdentity(trx, linkedUser.id, identity, `user:${linkedUser.id}`));
    }
  }
  if (!user) {
    found = 'signed_up';
    const email = identity.email !== null && identity.emailVerified ? identity.email : null;
    try {
      ({ user } = await signUps.signUp({
        email,
        emailVerified: email !== null,
        passwordHash: null,
        name: identity.name,
        locale: options.locale,
        identity: { provider: identity.provider, subject: identity.subject, email: identity.email },
        inviteCode: options.inviteCode ?? undefined,
        referralCode: options.referralCode ?? undefined,
      }));
    } catch (error) {
      if (error instanceof SignupClosedError) throw new OutsideLoginRefusedError('signup_closed', 'no user has this login and sign-up is closed');
      if (error instanceof InviteRequiredError) throw new OutsideLoginRefusedError('invite_required', 'no user has this login and sign-up needs an invite code');
      if (error instanceof InviteInvalidError) throw new OutsideLoginRefusedError('invite_invalid', error.message);
      throw error;
    }
  }
  if (user.disabledAt !== null) throw new OutsideLoginRefusedError('user_disabled', `user ${user.id} is disabled`);
  const [membership] = await members.ofUser(user.id);
  if (!membership) throw new OutsideLoginRefusedError('no_account', `user ${user.id} is a member of no account`);
  const loggedIn = user;
  const opened = await services.db.transaction(async (trx) => {
    const session = await services.sessions.openForUser({ accountId: membership.accountId, userId: loggedIn.id, method: options.method }, options.client, trx);
    await writeAudit(
      trx,
      { actor: `user:${loggedIn.id}`, action: 'user.login', target: loggedIn.id, accountId: membership.accountId, details: { method: options.method, provider: identity.provider, session_id: session.session.id } },
      services.now(),
    );
    return session;
  });
  await users.noteLogin(user.id);
  return { user, session: opened.session, cookieToken: opened.cookieToken, found };
}
