// Who may act for an account: its members, each an `owner` or a `member`. A member uses
// everything except moving money, managing members and changing the account's details (the
// route table marks those routes `owner`, src/http/middleware/session-auth.ts refuses them).
// A session opened by an operator's login link has no user and acts as an owner.
import type { Knex } from 'knex';

export const memberRoles = ['owner', 'member'] as const;
export type MemberRole = (typeof memberRoles)[number];

export interface Membership {
  readonly accountId: string;
  readonly accountName: string;
  readonly userId: string;
  readonly role: MemberRole;
  readonly createdAt: number;
}

interface MembershipRow {
  account_id: string;
  account_name: string;
  user_id: string;
  role: string;
  created_at: string | number;
}

const fromRow = (row: MembershipRow): Membership => ({
  accountId: row.account_id,
  accountName: row.account_name,
  userId: row.user_id,
  role: row.role === 'owner' ? 'owner' : 'member',
  createdAt: Number(row.created_at),
});

export class AccountMembers {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  private withAccount(db: Knex | Knex.Transaction) {
    return db('account_members as m').join('accounts as a', 'a.id', 'm.account_id').select('m.*', 'a.name as account_name');
  }

  /** Adds a member in the caller's transaction (the caller audits it). */
  async add(trx: Knex.Transaction, membership: { accountId: string; userId: string; role: MemberRole; createdBy: string }): Promise<void> {
    await trx('account_members').insert({ account_id: membership.accountId, user_id: membership.userId, role: membership.role, created_by: membership.createdBy, created_at: this.now() });
  }

  /** The accounts a user belongs to, oldest membership first (the first is where a login lands). */
  async ofUser(userId: string, db: Knex | Knex.Transaction = this.db): Promise<Membership[]> {
    return ((await this.withAccount(db).where('m.user_id', userId).orderBy('m.created_at').orderBy('m.account_id')) as MembershipRow[]).map(fromRow);
  }

  /** The members of an account, owners first. */
  async ofAccount(accountId: string, db: Knex | Knex.Transaction = this.db): Promise<Membership[]> {
    return ((await this.withAccount(db).where('m.account_id', accountId).orderBy('m.role', 'desc').orderBy('m.created_at')) as MembershipRow[]).map(fromRow);
  }

  async roleOf(accountId: string, userId: string, db: Knex | Knex.Transaction = this.db): Promise<MemberRole | undefined> {
    const row: { role: string } | undefined = await db('account_members').where({ account_id: accountId, user_id: userId }).first('role');
    return row === undefined ? undefined : row.role === 'owner' ? 'owner' : 'member';
  }
}
