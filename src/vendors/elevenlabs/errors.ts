// ElevenLabs' error answers: `{"detail": {"status": "voice_not_found", "message": "…"}}`, or
// FastAPI's own `{"detail": [{loc, msg, type}]}` for a body it cannot read (422). A spent
// quota comes as 401 `quota_exceeded`: it is the provider account's credits, not its key, so it
// is reported as 402 rather than as refused credentials.
import { detailMessage } from '../bfl/errors.js';
import { isObject, stringOf } from '../shared/json.js';
import { errorFromResponse, isRetryableStatus } from '../shared/upstream-errors.js';
import { UpstreamError } from '../types.js';

/** `detail.status` values that are a busy system, whatever HTTP status came with them. */
const transientStatuses = new Set(['system_busy', 'too_many_concurrent_requests', 'rate_limit_exceeded', 'service_unavailable']);

export function parseElevenLabsError(status: number, bodyText: string): UpstreamError {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return errorFromResponse(status, bodyText);
  }
  if (!isObject(body) || !('detail' in body)) return errorFromResponse(status, bodyText);
  const type = isObject(body.detail) ? stringOf(body.detail.status) : Array.isArray(body.detail) ? 'validation_error' : undefined;
  const message = `ElevenLabs: ${detailMessage(body.detail) ?? `HTTP ${status}`}`;
  if (type === 'quota_exceeded') return new UpstreamError(message, 402, false, type);
  return new UpstreamError(message, status, isRetryableStatus(status) || (type !== undefined && transientStatuses.has(type)), type);
}
