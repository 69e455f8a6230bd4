// The code of an account's referral link (`<public_url>/cabinet/signup?ref=<code>`; docs/
// payments.md, "Referrals"). Short enough to read aloud or type from a screenshot: 8 characters
// of an alphabet without the look-alikes 0/o, 1/l/i (31^8 ≈ 8.5·10^11 codes), stored in
// lowercase; what a visitor brings is matched whatever its case. Not a secret: knowing a code
// only lets someone sign up as that account's referral.
//
// A code is made the first time the account's referral page is read, not at account creation:
// accounts made before referrals existed need no backfill, and an account that never shares
// its link never gets one. Two first reads at once make one code (the UPDATE only fills an
// empty column; both then read what was kept).
import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../db/errors.js';

const alphabet = '23456789abcdefghjkmnpqrstuvwxyz';
export const referralCodeLength = 8;

export function newReferralCode(): string {
  let code = '';
  for (let index = 0; index < referralCodeLength; index++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/** A code as a visitor brought it (a link's `ref`, a form field), in the stored spelling; null when it cannot be one. */
export function normalizeReferralCode(code: unknown): string | null {
  if (typeof code !== 'string') return null;
  const normalized = code.trim().toLowerCase();
  return new RegExp(`^[${alphabet}]{${referralCodeLength}}$`).test(normalized) ? normalized : null;
}

/** The account's code, made now when it has none yet. */
export async function referralCodeOf(db: Knex, accountId: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const row: { referral_code: string | null } | undefined = await db('accounts').where({ id: accountId }).first('referral_code');
    if (!row) throw new Error(`no account ${accountId}`);
    if (row.referral_code !== null) return row.referral_code;
    try {
      await db('accounts').where({ id: accountId }).whereNull('referral_code').update({ referral_code: newReferralCode() });
    } catch (error) {
      // Another account drew the same code (about one chance in 10^11 per existing code): draw again.
      if (!isUniqueViolation(error) || attempt >= 5) throw error;
    }
  }
}
