// Error bodies of the two non-OpenAI media protocols. Stability AI: `{id, name, errors:[…]}`
// with a snake_case name per status. TypeSafe System One (FastAPI): validation failures are
// 422 `{detail:[{type, loc, msg, input}]}` (pydantic v2 style), other errors `{detail:"…"}`.
import { SimError } from '../errors.js';

const stabilityNames: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'content_moderation',
  404: 'not_found',
  413: 'payload_too_large',
  422: 'invalid_request',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
};

export function stabilityErrorBody(error: SimError, requestId: string): unknown {
  const name = stabilityNames[error.status] ?? (error.status >= 500 ? 'internal_error' : 'bad_request');
  return { id: requestId, name, errors: [error.message] };
}

export interface ValidationDetail {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly input?: unknown;
}

/** A System One request the real service would refuse with 422, with every problem found. */
export class ValidationFailure extends SimError {
  constructor(readonly details: readonly ValidationDetail[]) {
    super(422, details.map((detail) => `${detail.loc.join('.')}: ${detail.msg}`).join('; '), null, 'validation_error');
    this.name = 'ValidationFailure';
  }
}

export function systemOneErrorBody(error: SimError): unknown {
  return { detail: error instanceof ValidationFailure ? error.details : error.message };
}
