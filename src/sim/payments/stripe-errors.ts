// Stripe's error answer, as the simulated API gives it: `{"error": {type, message, code, param}}`
// with the status the official libraries map to their error classes (400/404 → invalid
// request, 401 → authentication, 402 → card, 409/5xx → retried).

export class StripeSimError extends Error {
  constructor(
    readonly status: number,
    readonly type: 'invalid_request_error' | 'idempotency_error' | 'card_error' | 'api_error',
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'StripeSimError';
  }

  get body(): { error: Record<string, string> } {
    const error: Record<string, string> = { type: this.type, message: this.message };
    if (this.code) error.code = this.code;
    if (this.param) error.param = this.param;
    return { error };
  }
}

/** 400 for a missing or malformed parameter. */
export const invalidParameter = (param: string, message: string, code = 'parameter_invalid_string') => new StripeSimError(400, 'invalid_request_error', message, code, param);

/** 404 for an id this shop does not have, worded as Stripe words it. */
export const noSuch = (objectName: string, id: string, param = 'id') => new StripeSimError(404, 'invalid_request_error', `No such ${objectName}: '${id}'`, 'resource_missing', param);
