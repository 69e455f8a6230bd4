// Why a key cannot be used now: revoked, its account disabled, or changed since this process
// cached it. Told by the key lookup (api-keys.ts, keyRefusal), which the hold also asks in its
// own transaction (src/billing/ledger.ts): the ledger throws them, the key's module owns them.
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { invalidKey } from '../errors/refusals.js';

/**
 * The API key a hold was placed for is revoked (or gone): nothing was held. A process serves
 * charged routes with keys from its cache; the hold statement is where a revocation made by
 * another process is seen (src/auth/api-keys.ts).
 */
export class KeyNotLiveError extends DomainError {
  override readonly catalogCode = 'invalid_api_key';

  constructor(readonly keyId: string) {
    super(`API key ${keyId} is revoked`);
    this.name = 'KeyNotLiveError';
  }

  override toGatewayError(): GatewayError {
    return invalidKey();
  }
}

/**
 * The key's account is disabled (`gateway accounts disable`): nothing was held. Seen by the key
 * lookup (a join) and, for a key from a process's cache, by the hold's own statement.
 */
export class AccountDisabledError extends DomainError {
  override readonly catalogCode = 'account_disabled';

  constructor(
    readonly keyId: string,
    readonly accountId: string,
  ) {
    super(`account ${accountId} is disabled`);
    this.name = 'AccountDisabledError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, 'This API key belongs to a disabled account. Contact the gateway operator.');
  }
}

/**
 * The API key a hold was placed for has changed (`keys update`) since this process cached it:
 * nothing was held. The caller reads the key again (ApiKeys.refresh), re-checks the request
 * against it and holds again.
 */
export class KeyChangedError extends Error {
  constructor(readonly keyId: string) {
    super(`API key ${keyId} changed since it was cached`);
    this.name = 'KeyChangedError';
  }
}
