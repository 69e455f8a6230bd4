// Yandex Cloud's error bodies → UpstreamError. The Foundation Models API answers errors as
//   {"error": {"grpcCode": 8, "httpCode": 429, "message": "…", "httpStatus": "Too Many Requests", "details": []}}
// both as a non-2xx answer and as a line of a 200 stream. Operations (YandexART polls) carry a
// failed operation's error as {"code", "message"} in the operation itself (images.ts).
import { UpstreamError } from '../types.js';
import { isObject, objectOf, stringOf } from '../shared/json.js';
import { errorFromResponse, isRetryableStatus } from '../shared/upstream-errors.js';

/**
 * Yandex sends no Retry-After with its 429 (quota per second or per hour): a short cooldown
 * still keeps the route from being hammered while other routes serve.
 */
export const yandexRateLimitCooldownMs = 1_000;

/** gRPC status codes Yandex reports, by number, as names (the upstream type of the error). */
const grpcCodeNames: Readonly<Record<number, string>> = {
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

interface YandexErrorFields {
  readonly message?: string;
  readonly type?: string;
  readonly httpCode?: number;
}

function yandexErrorFields(value: unknown): YandexErrorFields | undefined {
  const error = objectOf(isObject(value) ? value.error : undefined);
  if (!error || (error.grpcCode === undefined && error.httpCode === undefined)) return undefined;
  const grpcCode = typeof error.grpcCode === 'number' ? error.grpcCode : undefined;
  return {
    message: stringOf(error.message),
    type: (grpcCode !== undefined ? grpcCodeNames[grpcCode] : undefined) ?? stringOf(error.httpStatus),
    httpCode: typeof error.httpCode === 'number' ? error.httpCode : undefined,
  };
}

export function yandexErrorFromResponse(status: number, bodyText: string): UpstreamError {
  let fields: YandexErrorFields | undefined;
  try {
    fields = yandexErrorFields(JSON.parse(bodyText));
  } catch {
    // Not JSON (a proxy's page): the shared reader shortens the text.
  }
  const error = fields ? new UpstreamError(fields.message ?? `HTTP ${status}`, status, isRetryableStatus(status), fields.type) : errorFromResponse(status, bodyText);
  if (status === 429) error.retryAfterMs = yandexRateLimitCooldownMs;
  return error;
}

/** An error line inside a 200 stream: judged by the HTTP code it names. */
export function yandexErrorFromStreamLine(value: unknown): UpstreamError | undefined {
  const fields = yandexErrorFields(value);
  if (!fields) return undefined;
  const status = fields.httpCode ?? 0;
  const error = new UpstreamError(fields.message ?? 'the upstream reported an error in the stream', status, status === 0 || isRetryableStatus(status), fields.type);
  if (status === 429) error.retryAfterMs = yandexRateLimitCooldownMs;
  return error;
}
