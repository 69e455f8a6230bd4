// Domain errors of the ledger. The HTTP layer maps them to 402/404; the CLI prints them.
import { formatRub } from './money.js';

export class InsufficientBalanceError extends Error {
  constructor(
    readonly neededUnits: bigint,
    readonly availableUnits: bigint,
    /** What the client can do instead, e.g. the largest affordable max_tokens. */
    readonly hint?: string,
  ) {
    super(`insufficient balance: this request needs ${formatRub(neededUnits)} RUB, ${formatRub(availableUnits)} RUB is available${hint ? `. ${hint}` : ''}`);
    this.name = 'InsufficientBalanceError';
  }
}

export class AccountNotFoundError extends Error {
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
export class KeyNotLiveError extends Error {
  constructor(readonly keyId: string) {
    super(`API key ${keyId} is revoked`);
    this.name = 'KeyNotLiveError';
  }
}

/**
 * The key's account is disabled (`gateway accounts disable`): nothing was held. Seen by the key
 * lookup (a join) and, for a key from a process's cache, by the hold's own statement.
 */
export class AccountDisabledError extends Error {
  constructor(
    readonly keyId: string,
    readonly accountId: string,
  ) {
    super(`account ${accountId} is disabled`);
    this.name = 'AccountDisabledError';
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
