// Black Forest Labs' error answers. The API is FastAPI: `{"detail": "message"}`, or for a body
// it cannot take (422) `{"detail": [{"loc": ["body", "width"], "msg": "…", "type": "…"}]}`.
// 402 is "insufficient credits" (the operator's account, not the request), 429 "too many
// active tasks" (with Retry-After when it says). The result's sample lives on another host (a
// signed storage URL that expires about 10 minutes after the task is Ready): it answers a
// stale or unknown URL with a non-JSON 403/404 (storage's XML), which is told apart here so
// that it does not read as the provider key being refused.
import { arrayOf, isObject, stringOf } from '../shared/json.js';
import { errorFromResponse, isRetryableStatus } from '../shared/upstream-errors.js';
import { UpstreamError } from '../types.js';

export function parseBflError(status: number, bodyText: string): UpstreamError {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    if (status === 403 || status === 404 || status === 410) {
      // Not retryable: another try would pay for a second generation upstream.
      return new UpstreamError('the FLUX result could not be downloaded: its signed URL had expired (it lasts about 10 minutes) or is unknown', 502, false, 'result_expired');
    }
    return errorFromResponse(status, bodyText);
  }
  if (!isObject(body) || !('detail' in body)) return errorFromResponse(status, bodyText);
  const message = detailMessage(body.detail) ?? `HTTP ${status}`;
  if (status === 402) return new UpstreamError(`FLUX: insufficient credits on the provider's account: ${message}`, 402, false, 'insufficient_credits');
  return new UpstreamError(`FLUX: ${message}`, status, isRetryableStatus(status), status === 429 ? 'rate_limited' : undefined);
}

/** FastAPI's `detail`: a string, an object with a message, or a list of validation problems. */
export function detailMessage(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (isObject(detail)) return stringOf(detail.message) ?? JSON.stringify(detail);
  const problems = arrayOf(detail)
    .filter(isObject)
    .map((problem) => {
      const where = arrayOf(problem.loc).filter((part) => part !== 'body').join('.');
      return where ? `${where}: ${stringOf(problem.msg) ?? 'invalid'}` : (stringOf(problem.msg) ?? 'invalid');
    });
  if (problems.length === 0) return undefined;
  return problems.length === 1 ? problems[0] : `${problems[0]} (and ${problems.length - 1} more)`;
}
