// Errors in each vendor's own shape and status, so the gateway's adapters parse simulated
// failures with exactly the code they use for real ones.

/** A request the simulator refuses (validation) or a fault it was asked to produce. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** OpenAI `param` (the offending field), when known. */
    readonly param: string | null = null,
    /** Overrides the type derived from the status. */
    readonly type?: string,
    /** OpenAI `code`. */
    readonly code: string | null = null,
    /** The Retry-After of a 429, in seconds. */
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
    this.name = 'SimError';
  }
}

export function invalid(message: string, param: string | null = null): SimError {
  return new SimError(400, message, param, undefined, param === null ? null : 'invalid_value');
}

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicErrorType(status: number): string {
  return anthropicTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function anthropicErrorBody(error: SimError, requestId: string): unknown {
  return { type: 'error', error: { type: error.type ?? anthropicErrorType(error.status), message: error.message }, request_id: requestId };
}

export function openaiErrorBody(error: SimError): unknown {
  const type = error.type ?? (error.status === 429 ? 'requests' : error.status >= 500 ? 'server_error' : 'invalid_request_error');
  const code = error.code ?? (error.status === 429 ? 'rate_limit_exceeded' : null);
  return { error: { message: error.message, type, param: error.param, code } };
}

/** The error a `[[sim:status=N]]` fault produces. */
export function faultError(status: number, retryAfterSeconds = 1): SimError {
  const messages: Record<number, string> = {
    429: 'Simulated rate limit: slow down',
    500: 'Simulated internal server error',
    503: 'Simulated service unavailable',
    529: 'Simulated overload',
  };
  return new SimError(status, messages[status] ?? `Simulated HTTP ${status}`, null, undefined, status === 429 ? 'rate_limit_exceeded' : null, retryAfterSeconds);
}
