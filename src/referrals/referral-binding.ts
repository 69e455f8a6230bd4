// Binding an account to the account whose referral link it came through (docs/payments.md,
// "Referrals"). Written once, in the caller's transaction (the sign-up's: src/users/sign-up.ts),
// and never changed: the referrer then earns referral.percent of the account's paid top-ups
// for referral.months (referral-hooks.ts).
//
// Refused, and the sign-up goes on without a referrer (the customer is never turned away for a
// link): a code that names no account, the account's own code, and any referrer in the
// account's own chain — walking `referred_by` upward from the referrer must never reach the
// account, or money would flow round a loop. The walk is bounded: a chain longer than
// `maxReferralChain` is refused too rather than walked without end.
import type { Knex } from 'knex';
import { isPostgres } from '../db/dialect.js';
import { normalizeReferralCode } from './referral-codes.js';

/** Generations walked upward from a referrer before a binding is refused as unprovable. */
export const maxReferralChain = 64;

export type ReferralBinding =
  | { readonly bound: true; readonly referrerId: string }
  | { readonly bound: false; readonly reason: 'unknown_code' | 'self' | 'loop' | 'chain_too_long' | 'already_referred' };

/**
 * Binds `accountId` to the owner of `code` at `at`, unless refused (see the top). The account's
 * row is locked first (PostgreSQL; SQLite has one writer), so two bindings of one account
 * cannot both pass the checks.
 */
export async function bindReferrer(trx: Knex.Transaction, accountId: string, code: string, at: number): Promise<ReferralBinding> {
  const normalized = normalizeReferralCode(code);
  if (normalized === null) return { bound: false, reason: 'unknown_code' };
  const read = trx('accounts').where({ id: accountId }).first('referred_by');
  const account: { referred_by: string | null } | undefined = await (isPostgres(trx) ? read.forUpdate() : read);
  if (!account) throw new Error(`no account ${accountId}`);
  if (account.referred_by !== null) return { bound: false, reason: 'already_referred' };
  const referrer: { id: string } | undefined = await trx('accounts').where({ referral_code: normalized }).first('id');
  if (!referrer) return { bound: false, reason: 'unknown_code' };
  if (referrer.id === accountId) return { bound: false, reason: 'self' };
  const refusal = await chainRefusal(trx, accountId, referrer.id);
  if (refusal) return { bound: false, reason: refusal };
  const updated = await trx('accounts').where({ id: accountId }).whereNull('referred_by').update({ referred_by: referrer.id, referred_at: at });
  if (updated !== 1) return { bound: false, reason: 'already_referred' };
  return { bound: true, referrerId: referrer.id };
}

/** Walks upward from `referrerId`: 'loop' when the chain reaches `accountId`, 'chain_too_long' past the bound. */
async function chainRefusal(trx: Knex.Transaction, accountId: string, referrerId: string): Promise<'loop' | 'chain_too_long' | undefined> {
  let current: string | null = referrerId;
  for (let step = 0; step < maxReferralChain; step++) {
    const row: { referred_by: string | null } | undefined = await trx('accounts').where({ id: current }).first('referred_by');
    current = row?.referred_by ?? null;
    if (current === null) return undefined;
    if (current === accountId) return 'loop';
  }
  return 'chain_too_long';
}
