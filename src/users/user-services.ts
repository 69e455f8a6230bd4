// The self-service accounts' services in one object (services.users): users, their accounts'
// memberships, email links, invite codes, sign-up and the mailer. docs/cabinet.md tells the story.
import type { Knex } from 'knex';
import type { Accounts } from '../accounts/accounts.js';
import type { Ledger } from '../billing/ledger.js';
import type { Config } from '../config/load.js';
import { openMailer, type Mailer } from '../email/mailer.js';
import { AccountMembers } from './account-members.js';
import { EmailTokens } from './email-tokens.js';
import { Invites } from './invites.js';
import { Memberships } from './memberships.js';
import { SignUps } from './sign-up.js';
import { Users } from './users.js';

export interface UserServices {
  readonly users: Users;
  readonly members: AccountMembers;
  readonly emailTokens: EmailTokens;
  readonly invites: Invites;
  readonly signUps: SignUps;
  /** Inviting, joining, roles and removal of an account's members (memberships.ts). */
  readonly memberships: Memberships;
  /** Undefined without `email` (or with its SMTP URL variable unset): email sign-up is then unavailable. */
  readonly mailer: Mailer | undefined;
}

export function openUserServices(db: Knex, config: Config, services: { accounts: Accounts; ledger: Ledger }, now: () => number): UserServices {
  const users = new Users(db, now);
  const members = new AccountMembers(db, now);
  const invites = new Invites(db, now);
  const emailTokens = new EmailTokens(db, config.cabinet.emailLinkTtlMs, now);
  return {
    users,
    members,
    emailTokens,
    invites,
    signUps: new SignUps(db, config.cabinet.signup, config.cabinet.signupBonusUnits, { users, members, accounts: services.accounts, invites, ledger: services.ledger }, now, config.referral),
    memberships: new Memberships(db, { users, members, emailTokens }, now),
    mailer: openMailer(config.email),
  };
}
