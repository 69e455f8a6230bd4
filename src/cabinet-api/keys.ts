// How the cabinet shows an account's API keys (GET /cabinet/api/keys and the answers of create
// and revoke): never the secret (only create's answer carries it, once), times as Unix seconds
// like every created_at of the HTTP API, the budget as an exact RUB string.
import type { ApiKey } from '../auth/api-keys.js';
import { formatRub } from '../util/money.js';

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export function presentCabinetKey(apiKey: ApiKey) {
  return {
    id: apiKey.id,
    object: 'api_key',
    name: apiKey.name,
    prefix: apiKey.prefix,
    last4: apiKey.last4,
    scopes: apiKey.scopes,
    rpm: apiKey.rpm,
    tpm: apiKey.tpm,
    max_in_flight: apiKey.maxInFlight,
    purpose: apiKey.purpose,
    created_at: seconds(apiKey.createdAt),
    last_used_at: seconds(apiKey.lastUsedAt),
    revoked_at: seconds(apiKey.revokedAt),
    expires_at: seconds(apiKey.expiresAt),
    models: apiKey.models,
    allowed_ips: apiKey.allowedIps,
    budget_rub: apiKey.budgetUnits === null ? null : formatRub(apiKey.budgetUnits),
    budget_period: apiKey.budgetPeriod,
  };
}
