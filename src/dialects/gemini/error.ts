// Google's error body, for the /v1beta routes: `{"error": {"code", "message", "status",
// "details"}}`, `status` the google.rpc.Code name of the HTTP status (the catalog's, so a code
// means the same on every route). `details` carries a google.rpc.ErrorInfo naming the catalog
// code and the request id, and for a refused field a google.rpc.BadRequest naming the field.
import type { GatewayError } from '../../errors/gateway-error.js';

/** google.rpc.Code names by HTTP status, as Google's HTTP mapping gives them. */
const rpcStatusNames: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  // No google.rpc code is "payment required": the account is not in a state to serve (top up first).
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  431: 'INVALID_ARGUMENT',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function rpcStatusName(httpStatus: number): string {
  return rpcStatusNames[httpStatus] ?? (httpStatus < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL');
}

export function encodeGeminiError(error: GatewayError, requestId: string): Record<string, unknown> {
  const details: Record<string, unknown>[] = [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code, domain: 'gateway', metadata: { request_id: requestId } },
  ];
  if (error.options.detail) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: error.options.detail.map((entry) => ({ field: entry.loc.filter((part, i) => !(i === 0 && part === 'body')).join('.'), description: entry.msg })),
    });
  }
  return { error: { code: error.status, message: error.message, status: rpcStatusName(error.status), details } };
}

/** The in-stream error after the first byte (the SDK throws an ApiError with its code). */
export function streamErrorBody(message: string, type: string): Record<string, unknown> {
  const code = type === 'invalid_request_error' ? 400 : 500;
  return { error: { code, message, status: rpcStatusName(code) } };
}
