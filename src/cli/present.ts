// How accounts, keys and balances look in the CLI's JSON (DESIGN.md §2.1) and the admin API's
// (the same objects: an operator's script reads either). No oclif here: the HTTP shell imports it.
import type { Account } from '../accounts/accounts.js';
import type { ApiKey } from '../auth/api-keys.js';
import type { CorrectionResult, RefundResult } from '../billing/corrections.js';
import type { BalanceSummary } from '../billing/ledger.js';
import { formatRub } from '../util/money.js';
import type { Membership } from '../users/account-members.js';
import type { User } from '../users/users.js';
import { isoTime } from '../util/iso-time.js';

export function presentAccount(account: Account, options: { withSecret?: boolean } = {}) {
  return {
    id: account.id,
    name: account.name,
    balance_rub: formatRub(account.balanceUnits),
    held_rub: formatRub(account.heldUnits),
    available_rub: formatRub(account.balanceUnits - account.heldUnits),
    created_at: isoTime(account.createdAt),
    state: account.disabledAt === null ? 'enabled' : 'disabled',
    disabled_at: isoTime(account.disabledAt),
    disabled_reason: account.disabledReason,
    ...(options.withSecret ? { webhook_secret: account.webhookSecret } : {}),
  };
}

/** A user as `gateway users ls --json` and /admin/v1/users show them (never the password hash). */
export function presentUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    email_verified: user.emailVerifiedAt !== null,
    name: user.name,
    locale: user.locale,
    has_password: user.hasPassword,
    state: user.disabledAt === null ? 'enabled' : 'disabled',
    created_at: isoTime(user.createdAt),
    last_login_at: isoTime(user.lastLoginAt),
    disabled_at: isoTime(user.disabledAt),
  };
}

/** A user with the accounts they act for (`gateway users show`, GET /admin/v1/users/{id}). */
export function presentUserDetail(user: User, memberships: readonly Membership[]) {
  return { ...presentUser(user), memberships: memberships.map((membership) => ({ account_id: membership.accountId, account_name: membership.accountName, role: membership.role, joined_at: isoTime(membership.createdAt) })) };
}

export function presentKey(apiKey: ApiKey) {
  return {
    id: apiKey.id,
    account_id: apiKey.accountId,
    name: apiKey.name,
    prefix: apiKey.prefix,
    last4: apiKey.last4,
    scopes: apiKey.scopes,
    rpm: apiKey.rpm,
    tpm: apiKey.tpm,
    max_in_flight: apiKey.maxInFlight,
    created_at: isoTime(apiKey.createdAt),
    last_used_at: isoTime(apiKey.lastUsedAt),
    revoked_at: isoTime(apiKey.revokedAt),
    expires_at: isoTime(apiKey.expiresAt),
    models: apiKey.models,
    allowed_ips: apiKey.allowedIps,
    budget_rub: apiKey.budgetUnits === null ? null : formatRub(apiKey.budgetUnits),
    budget_period: apiKey.budgetPeriod,
    /** `cabinet`: the key the web cabinet acts through (made on first need; revoking it is allowed). */
    purpose: apiKey.purpose,
  };
}

/** `active`, `revoked` or `expired` (at `now`). */
export function keyStatus(apiKey: ApiKey, now: number): 'active' | 'revoked' | 'expired' {
  return apiKey.revokedAt !== null ? 'revoked' : apiKey.expiresAt !== null && apiKey.expiresAt <= now ? 'expired' : 'active';
}

/** A key just created, with its secret (`key`): what `keys create --json` and the admin API answer, once. */
export function presentCreatedKey(apiKey: ApiKey, key: string) {
  const { id, prefix, last4, account_id, name, rpm, tpm, max_in_flight, expires_at, models, allowed_ips, budget_rub, budget_period } = presentKey(apiKey);
  return { id, key, prefix, last4, scopes: apiKey.scopes, account_id, name, rpm, tpm, max_in_flight, expires_at, models, allowed_ips, budget_rub, budget_period };
}

/** A topup or an adjustment as `balance topup/adjust --json` and the admin API answer it. */
export function presentCredit(result: CorrectionResult, kind: 'topup' | 'bonus' | 'referral' | 'adjustment', reason: string | null) {
  return {
    transaction_id: `txn_${result.transactionId}`,
    account_id: result.accountId,
    kind,
    amount_rub: formatRub(result.amountUnits),
    balance_rub: formatRub(result.balanceUnits),
    reason,
    audit_id: result.auditId,
  };
}

/** A refund as `balance refund --json` prints it and POST /admin/v1/accounts/:id/refund answers it. */
export function presentRefund(result: RefundResult, reason: string | null) {
  return {
    transaction_id: `txn_${result.transactionId}`,
    account_id: result.accountId,
    kind: 'refund' as const,
    amount_rub: formatRub(result.amountUnits),
    balance_rub: formatRub(result.balanceUnits),
    request_id: result.requestId,
    job_id: result.jobId,
    charge_transaction_id: `txn_${result.chargeTransactionId}`,
    reason,
    audit_id: result.auditId,
  };
}

export function presentBalance(summary: BalanceSummary) {
  return {
    account_id: summary.accountId,
    balance_rub: formatRub(summary.balanceUnits),
    held_rub: formatRub(summary.heldUnits),
    available_rub: formatRub(summary.availableUnits),
  };
}
