// Domain errors of the ledger, each with its catalog code and a client's wording (src/errors/domain-error.ts).
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { invalidKey } from '../errors/refusals.js';
import { formatRub } from '../util/money.js';

export class InsufficientBalanceError extends DomainError {
  override readonly catalogCode = 'insufficient_balance';

  constructor(
    readonly neededUnits: bigint,
    readonly availableUnits: bigint,
    /** What the client can do instead, e.g. the largest affordable max_tokens. */
    readonly hint?: string,
  ) {
    super(`insufficient balance: this request needs ${formatRub(neededUnits)} RUB, ${formatRub(availableUnits)} RUB is available${hint ? `. ${hint}` : ''}`);
    this.name = 'InsufficientBalanceError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(
      this.catalogCode,
      `Insufficient balance: this request needs ${formatRub(this.neededUnits)} RUB and ${formatRub(this.availableUnits)} RUB is available. ${this.hint ? `${this.hint} ` : ''}Top up the account.`,
    );
  }
}

export class AccountNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly account: string) {
    super(`no account "${account}"`);
    this.name = 'AccountNotFoundError';
  }
}

/** A hold that was already settled or released: the second attempt does nothing. */
export class HoldClosedError extends Error {
  constructor(readonly holdId: string) {
    super(`hold ${holdId} is already closed`);
    this.name = 'HoldClosedError';
  }
}

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
