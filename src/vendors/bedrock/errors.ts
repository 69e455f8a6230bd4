// Bedrock's error answers → UpstreamError. AWS puts the error's type in the
// `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/…`; some
// answers carry it in the body as `__type` or `code` instead) and a `{"message": …}` body.
//   400 ValidationException, 403 AccessDeniedException / UnrecognizedClientException (bad
//   keys, no model access), 404 ResourceNotFoundException, 408 ModelTimeoutException,
//   424 ModelErrorException, 429 ThrottlingException / ModelNotReadyException /
//   ServiceQuotaExceededException, 500 InternalServerException, 503 ServiceUnavailableException.
// Retryable: 408, 429 and 5xx (the status decides, as for every vendor); 401/403 never.
// Bedrock sends no Retry-After with its 429s: a throttled route cools down for a fixed while
// instead (the transport's Retry-After reading applies when an intermediary does send one).
import { retryAfterMs } from '../shared/http-transport.js';
import { isRetryableStatus } from '../shared/upstream-errors.js';
import { isObject, stringOf } from '../shared/json.js';
import { UpstreamError } from '../types.js';

export function bedrockErrorFromResponse(status: number, bodyText: string, headers?: Readonly<Record<string, string | string[] | undefined>>): UpstreamError {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    // Not JSON (a proxy's page): the text itself is the message.
  }
  const record = isObject(body) ? body : {};
  const header = headers?.['x-amzn-errortype'];
  const rawType = (Array.isArray(header) ? header[0] : header) ?? stringOf(record.__type) ?? stringOf(record.code);
  const type = rawType === undefined ? undefined : typeName(rawType);
  const text = bodyText.trim();
  const message = stringOf(record.message) ?? stringOf(record.Message) ?? (text && !isObject(body) ? text.slice(0, 500) : `HTTP ${status} with no message`);
  const wait = status === 429 ? (headers ? retryAfterMs(headers) : undefined) ?? throttledCooldownMs : undefined;
  return new UpstreamError(type ? `${type}: ${message}` : message, status, isRetryableStatus(status), type, wait);
}

/**
 * How long a throttled route rests when Bedrock gives no wait: its quotas are per minute per
 * model and region, and the SDK's own retries back off over a few seconds.
 */
export const throttledCooldownMs = 3_000;

/** `ThrottlingException:http://…` and `com.amazon.coral.service#ThrottlingException` → `ThrottlingException`. */
function typeName(raw: string): string {
  const withoutUri = raw.split(':')[0]!;
  return withoutUri.slice(withoutUri.lastIndexOf('#') + 1);
}
