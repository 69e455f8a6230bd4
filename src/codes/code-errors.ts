// What redeeming and managing codes refuse. The wording a customer reads is decided once, in
// src/errors/to-gateway-error.ts; these carry the facts.

/**
 * Unknown, mistyped, disabled, expired or used up: one error for all, so that trying codes
 * tells nobody which exist (the messages and the status are the same whatever the reason).
 */
export class CodeInvalidError extends Error {
  constructor() {
    super('this code is invalid, expired or already used up');
    this.name = 'CodeInvalidError';
  }
}

/** This account has redeemed this code already (a code credits an account once). Only its redeemer can see this. */
export class CodeAlreadyRedeemedError extends Error {
  constructor() {
    super('this account has already redeemed this code');
    this.name = 'CodeAlreadyRedeemedError';
  }
}

/** An operator named a batch (cbat_…) or code (code_…) id that does not exist. */
export class CodeNotFoundError extends Error {
  constructor(readonly id: string) {
    super(`no code batch or code "${id}"`);
    this.name = 'CodeNotFoundError';
  }
}
