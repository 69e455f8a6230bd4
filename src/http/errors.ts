// The error contract (DESIGN.md §2.3). Everything that refuses a request throws an ApiError;
// the error middleware encodes it in the caller's dialect: OpenAI's {"error": {…}} or, on
// /v1/messages*, Anthropic's {"type": "error", "error": {…}, "request_id"}.

import { echoedInput, maxDetailEntries } from '../validation/echoed-input.js';
import type { ValidationDetail } from '../validation/zod-details.js';

export type { ValidationDetail };

export interface ApiErrorOptions {
  /** OpenAI `error.type`; defaults by status. */
  type?: string;
  code?: string | null;
  param?: string | null;
  headers?: Record<string, string>;
  detail?: ValidationDetail[];
  /** Sets `x-should-retry` so SDKs retry (or not) honestly. */
  shouldRetry?: boolean;
  /** The message on /v1/messages* where Anthropic words it differently and clients parse it (context length). */
  anthropicMessage?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const openaiTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_balance',
  403: 'permission_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export type ErrorDialect = 'openai' | 'anthropic';

export function dialectForPath(path: string): ErrorDialect {
  return path.startsWith('/v1/messages') ? 'anthropic' : 'openai';
}

export function encodeError(error: ApiError, dialect: ErrorDialect, requestId: string): Record<string, unknown> {
  const { status, message, options } = error;
  const body: Record<string, unknown> =
    dialect === 'anthropic'
      ? {
          type: 'error',
          error: { type: anthropicTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message: options.anthropicMessage ?? message },
          request_id: requestId,
        }
      : {
          error: {
            message,
            type: options.type ?? openaiTypes[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
            param: options.param ?? null,
            code: options.code ?? null,
          },
        };
  if (options.detail) body.detail = options.detail;
  return body;
}

// Constructors for the refusals every route shares, so messages read the same everywhere.

export const unauthorized = (message = 'Missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>".') =>
  new ApiError(401, message, { code: 'invalid_api_key' });

export const invalidKey = () => unauthorized('Invalid API key: it is unknown or has been revoked.');

export const forbiddenScope = (scope: string) =>
  new ApiError(403, `This API key lacks the "${scope}" scope needed here. Create a key with --scopes ${scope} (gateway keys create).`, {
    code: 'insufficient_scope',
    param: null,
  });

/** Seconds a client is asked to wait while the database is unreachable. */
export const databaseRetryAfterSeconds = 2;

/**
 * The database cannot be reached (src/db/errors.ts): a 503 the client may retry after a short
 * wait — recovery needs no restart, the next request after the database is back succeeds.
 */
export const databaseUnavailable = () =>
  new ApiError(503, 'The database is unreachable at the moment; retry in a few seconds.', {
    code: 'database_unavailable',
    headers: { 'retry-after': String(databaseRetryAfterSeconds) },
    shouldRetry: true,
  });

export const notFound = (message: string, code = 'not_found', param: string | null = null) => new ApiError(404, message, { code, param });

export function validationFailed(details: ValidationDetail[]): ApiError {
  // Bounded whatever the request: at most maxDetailEntries entries, each echoing a bounded input.
  const detail = details.slice(0, maxDetailEntries).map((entry) => {
    const loc = entry.loc.map((part) => (typeof part === 'string' && part.length > 200 ? `${part.slice(0, 200)}…` : part)); // a key may be any length
    return 'input' in entry ? { ...entry, loc, input: echoedInput(entry.input) } : { ...entry, loc };
  });
  const first = detail[0]!;
  const where = first.loc.join('.');
  const param = first.loc.length > 1 ? first.loc.slice(1).join('.') : null;
  return new ApiError(422, `${where}: ${first.msg}`, { code: 'validation_error', param, detail });
}
