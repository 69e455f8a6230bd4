// Upstream failures → UpstreamError, for every error body shape the supported upstreams send:
//   OpenAI        {"error": {"message", "type", "param", "code"}}
//   Anthropic     {"type": "error", "error": {"type", "message"}, "request_id"}
//   vLLM (older)  {"object": "error", "message", "type", "param", "code"}
//   Ollama        {"error": "model 'x' not found"}
//   proxies       plain text or HTML (nginx 502 pages)
// Retryable (wire-formats §0.1 "Retries"): 408, 409, 429, every 5xx (529 included), and an
// overload whatever status it came with.
import { UpstreamError } from '../types.js';
import { isObject, stringOf } from './json.js';

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const overloadTypes = new Set(['overloaded_error', 'overloaded']);

/**
 * Types of in-stream errors that are transient. An in-stream error carries no HTTP status,
 * so its type is all there is to judge by.
 */
const transientTypes = new Set([
  ...overloadTypes,
  'api_error',
  'server_error',
  'internal_error',
  'internal_server_error',
  'rate_limit_error',
  'rate_limit_exceeded',
  'timeout_error',
  'service_unavailable',
]);

interface ErrorFields {
  readonly message?: string;
  readonly type?: string;
  /** A numeric code some upstreams (OpenRouter) put in `error.code`: an HTTP status. */
  readonly statusCode?: number;
}

/** Message and type out of any of the shapes above (the `error` member, or the body itself). */
export function errorFields(value: unknown): ErrorFields {
  if (!isObject(value)) return {};
  const inner = value.error;
  if (typeof inner === 'string') return { message: inner };
  const source = isObject(inner) ? inner : value;
  const code = source.code;
  const type = stringOf(source.type) ?? (typeof code === 'string' ? code : undefined);
  return {
    message: stringOf(source.message),
    // The Anthropic envelope's own `type` is "error"; it says nothing.
    type: type === 'error' ? undefined : type,
    statusCode: typeof code === 'number' ? code : undefined,
  };
}

/** A non-2xx upstream answer. */
export function errorFromResponse(status: number, bodyText: string): UpstreamError {
  let fields: ErrorFields = {};
  try {
    fields = errorFields(JSON.parse(bodyText));
  } catch {
    // Not JSON: the text itself (shortened) is the message.
  }
  const text = bodyText.trim();
  const message = fields.message ?? (text ? text.slice(0, 500) : `HTTP ${status} with an empty body`);
  const retryable = isRetryableStatus(status) || (fields.type !== undefined && overloadTypes.has(fields.type));
  return new UpstreamError(message, status, retryable, fields.type);
}

/** An error event inside a 200 stream (OpenAI `data: {"error": …}`, Anthropic `event: error`). */
export function errorFromStreamEvent(value: unknown): UpstreamError {
  const fields = errorFields(value);
  const retryable =
    (fields.type !== undefined && transientTypes.has(fields.type)) || (fields.statusCode !== undefined && isRetryableStatus(fields.statusCode));
  return new UpstreamError(fields.message ?? 'the upstream reported an error in the stream', 0, retryable, fields.type);
}

/** A stream that stopped before its end marker: whatever came is incomplete. */
export function truncatedStreamError(sawAnyEvent: boolean): UpstreamError {
  const message = sawAnyEvent ? 'the upstream stream ended before the response was complete' : 'the upstream stream ended before any response data';
  // Another route may well succeed: nothing here says the request itself was at fault.
  return new UpstreamError(message, 0, true, 'incomplete_stream');
}
