// What the cabinet's referral page shows of an account (GET /cabinet/api/referral): its code and
// link, how many accounts signed up through it, and the referral income so far.
import type { Knex } from 'knex';
import { unitsFromSql } from '../util/money.js';
import { referralCodeOf } from './referral-codes.js';

export interface ReferralSummary {
  /** Null when referrals are off (no code is made then). */
  readonly code: string | null;
  readonly referredAccounts: number;
  /** The sum of the account's `referral` rows: credits less their reversals. */
  readonly incomeUnits: bigint;
}

export async function referralSummary(db: Knex, accountId: string, options: { enabled: boolean }): Promise<ReferralSummary> {
  const code = options.enabled ? await referralCodeOf(db, accountId) : null;
  const referred: { n?: string | number } | undefined = await db('accounts').where({ referred_by: accountId }).count({ n: '*' }).first();
  const income: { total?: string | number | null } | undefined = await db('ledger_transactions').where({ account_id: accountId, kind: 'referral' }).sum({ total: 'amount_units' }).first();
  return { code, referredAccounts: Number(referred?.n ?? 0), incomeUnits: unitsFromSql(income?.total ?? 0) };
}

/** The link a customer shares: the cabinet's sign-up page with the code. */
export const referralLink = (publicUrl: string, code: string) => `${publicUrl}/cabinet/signup?ref=${code}`;
