// How an upstream failure reaches the client (DESIGN.md §2.3): the upstream's complaint about
// the request itself is a 400 with its message; its credentials or availability problems are
// 502, a timeout 504, with x-should-retry saying honestly whether trying again can help.
import { ApiError } from '../http/errors.js';
import { UpstreamError } from '../vendors/types.js';

export function upstreamFailure(error: unknown): Error {
  if (!(error instanceof UpstreamError)) return error as Error;
  const { status } = error;
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return new ApiError(400, `The upstream refused the request: ${error.message}`, { code: 'upstream_invalid_request', shouldRetry: false });
  }
  if (status === 401 || status === 403) {
    return new ApiError(502, 'The upstream refused the gateway\'s credentials; the operator must check the provider key.', { type: 'server_error', code: 'upstream_auth', shouldRetry: false });
  }
  if (status === 504 || error.upstreamType === 'timeout') {
    return new ApiError(504, `The upstream timed out: ${error.message}`, { type: 'server_error', code: 'upstream_timeout', shouldRetry: true });
  }
  const retryAfter = error.retryAfterMs ? Math.min(60, Math.max(1, Math.ceil(error.retryAfterMs / 1000))) : undefined;
  return new ApiError(502, `The upstream failed: ${error.message}`, {
    type: 'server_error',
    code: 'upstream_error',
    shouldRetry: error.retryable,
    // The upstream's own Retry-After, passed on so the SDKs wait as long as it asked.
    ...(retryAfter ? { headers: { 'retry-after': String(retryAfter), 'retry-after-ms': String(retryAfter * 1000) } } : {}),
  });
}
