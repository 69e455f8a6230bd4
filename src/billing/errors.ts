// Domain errors of the ledger, each with its catalog code and a client's wording (src/errors/domain-error.ts).
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
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
