// How accounts, keys and balances look in the CLI's JSON (DESIGN.md §2.1).
import type { Account } from '../accounts/accounts.js';
import type { ApiKey } from '../auth/api-keys.js';
import type { BalanceSummary } from '../billing/ledger.js';
import { formatRub } from '../billing/money.js';
import { isoTime } from './base-command.js';

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

export function presentKey(apiKey: ApiKey) {
  return {
    id: apiKey.id,
    account_id: apiKey.accountId,
    name: apiKey.name,
    prefix: apiKey.prefix,
    last4: apiKey.last4,
    scopes: apiKey.scopes,
    rpm: apiKey.rpm,
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

export function presentBalance(summary: BalanceSummary) {
  return {
    account_id: summary.accountId,
    balance_rub: formatRub(summary.balanceUnits),
    held_rub: formatRub(summary.heldUnits),
    available_rub: formatRub(summary.availableUnits),
  };
}
