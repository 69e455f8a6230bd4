// Google's error bodies → UpstreamError. The Gemini API and Vertex answer
//   {"error": {"code": 429, "message": "…", "status": "RESOURCE_EXHAUSTED", "details": [
//     {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34s"}, …]}}
// (a streaming endpoint may wrap it in an array). `status` is the upstream's error type;
// RetryInfo's delay is how long to wait when no Retry-After header says it (the transport
// fills that in only when the body did not). 401/403 (a bad key, a disabled API) are final.
import { UpstreamError } from '../types.js';
import { arrayOf, isObject, objectOf, stringOf, type JsonObject } from '../shared/json.js';
import { isRetryableStatus } from '../shared/upstream-errors.js';

/** Google's canonical codes that are worth another try when they arrive inside a stream. */
const transientStatuses = new Set(['RESOURCE_EXHAUSTED', 'UNAVAILABLE', 'INTERNAL', 'DEADLINE_EXCEEDED', 'ABORTED']);

/** The `error` object of a body: `{error}` or `[{error}]`. */
function googleError(body: unknown): JsonObject | undefined {
  const holder = Array.isArray(body) ? body[0] : body;
  return objectOf(objectOf(holder)?.error);
}

/** "34s", "1.5s" (a protobuf Duration in JSON) → milliseconds, rounded up. */
export function durationMs(value: unknown): number | undefined {
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(value.trim()) : null;
  return match ? Math.ceil(Number(match[1]) * 1000) : undefined;
}

function retryDelayOf(error: JsonObject): number | undefined {
  for (const detail of arrayOf(error.details)) {
    if (isObject(detail) && String(detail['@type'] ?? '').endsWith('google.rpc.RetryInfo')) return durationMs(detail.retryDelay);
  }
  return undefined;
}

export function parseGeminiError(status: number, bodyText: string): UpstreamError {
  let error: JsonObject | undefined;
  try {
    error = googleError(JSON.parse(bodyText));
  } catch {
    // Not JSON (a proxy's HTML page): the text is the message.
  }
  const text = bodyText.trim();
  const message = stringOf(error?.message) ?? (text ? text.slice(0, 500) : `HTTP ${status} with an empty body`);
  const type = stringOf(error?.status);
  return new UpstreamError(message, status, isRetryableStatus(status), type, error ? retryDelayOf(error) : undefined);
}

/** An `{"error": …}` chunk inside a 200 stream. */
export function geminiStreamError(chunk: JsonObject): UpstreamError {
  const error = objectOf(chunk.error) ?? {};
  const type = stringOf(error.status);
  const code = typeof error.code === 'number' ? error.code : 0;
  const retryable = (type !== undefined && transientStatuses.has(type)) || (code > 0 && isRetryableStatus(code));
  return new UpstreamError(stringOf(error.message) ?? 'the upstream reported an error in the stream', 0, retryable, type, retryDelayOf(error));
}
