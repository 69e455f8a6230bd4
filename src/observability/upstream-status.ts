// The label an upstream failure is counted, logged and traced by (metrics, the upstream warn
// line, the request log, a span's error.type): one spelling for all of them.
import { UpstreamError } from '../vendors/types.js';

/**
 * The status label of a failure: the upstream's HTTP status, or `timeout`, `connect_error`,
 * `stream_error` (an error event or a cut inside a 200 stream), `error` (anything else).
 */
export function upstreamStatusOf(error: unknown): string {
  if (!(error instanceof UpstreamError)) return 'error';
  if (error.upstreamType === 'timeout') return 'timeout';
  if (error.upstreamType === 'connection_error' || error.upstreamType === 'connection_refused') return 'connect_error';
  if (error.status === 0) return 'stream_error';
  return String(error.status);
}
