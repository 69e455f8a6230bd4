// What redeeming and managing codes refuse: the facts, and the wording a customer reads.
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Unknown, mistyped, disabled, expired or used up: one error for all, so that trying codes
 * tells nobody which exist (the messages and the status are the same whatever the reason).
 */
export class CodeInvalidError extends DomainError {
  override readonly catalogCode = 'code_invalid';

  constructor() {
    super('this code is invalid, expired or already used up');
    this.name = 'CodeInvalidError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, 'This code is invalid, expired or already used up. Check that it is typed correctly; nothing was credited.', { param: 'code' });
  }
}

/** This account has redeemed this code already (a code credits an account once). Only its redeemer can see this. */
export class CodeAlreadyRedeemedError extends DomainError {
  override readonly catalogCode = 'code_already_redeemed';

  constructor() {
    super('this account has already redeemed this code');
    this.name = 'CodeAlreadyRedeemedError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, 'This account has already redeemed this code; a code credits an account once. Nothing more was credited.', { param: 'code' });
  }
}

/** An operator named a batch (cbat_…) or code (code_…) id that does not exist. */
export class CodeNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly id: string) {
    super(`no code batch or code "${id}"`);
    this.name = 'CodeNotFoundError';
  }
}
