// How an upstream failure reaches the client (DESIGN.md §2.3): the upstream's complaint about
// the request itself is a 400 with its message; its credentials or availability problems are
// 502, a timeout 504, with x-should-retry saying honestly whether trying again can help.
import { GatewayError } from '../errors/gateway-error.js';
import { upstreamStatusOf } from '../observability/upstream-status.js';
import { UpstreamError } from '../vendors/types.js';

/** The longest upstream message passed on to a client. */
const maxClientMessageLength = 1_000;

/**
 * `redact`: what keeps the provider's key (and anything that looks like a secret) out of a
 * message the upstream wrote, which reaches the client (UpstreamObserver.redact).
 */
export function upstreamFailure(error: unknown, redact: { redact(text: string, maxLength: number): string }): Error {
  if (!(error instanceof UpstreamError)) return error as Error;
  const { status } = error;
  const message = redact.redact(error.message, maxClientMessageLength);
  // The request log keeps what the upstream answered (GET /admin/v1/request-log).
  const upstreamStatus = upstreamStatusOf(error);
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return new GatewayError('upstream_invalid_request', `The upstream refused the request: ${message}`, { upstreamStatus });
  }
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_auth', 'The upstream refused the gateway\'s credentials; the operator must check the provider key.', { upstreamStatus });
  }
  if (status === 504 || error.upstreamType === 'timeout') {
    return new GatewayError('upstream_timeout', `The upstream timed out: ${message}`, { upstreamStatus });
  }
  const retryAfter = error.retryAfterMs ? Math.min(60, Math.max(1, Math.ceil(error.retryAfterMs / 1000))) : undefined;
  return new GatewayError('upstream_error', `The upstream failed: ${message}`, {
    upstreamStatus,
    retryable: error.retryable,
    // The upstream's own Retry-After, passed on so the SDKs wait as long as it asked.
    ...(retryAfter ? { headers: { 'retry-after': String(retryAfter), 'retry-after-ms': String(retryAfter * 1000) } } : {}),
  });
}
