// Google's error body for every failure under the prefix: {"error": {code, message, status}},
// a 429 with RetryInfo's retryDelay in details (and a retry-after header), as the Gemini API
// and Vertex answer.
import type { ServerResponse } from 'node:http';
import { SimError } from '../../errors.js';

const statuses: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function googleStatus(code: number): string {
  return statuses[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

export function googleErrorBody(error: SimError): Record<string, unknown> {
  const body: Record<string, unknown> = { code: error.status, message: error.message, status: googleStatus(error.status) };
  if (error.status === 429) {
    body.details = [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfterSeconds}s` },
    ];
  }
  return { error: body };
}

export function sendGoogleError(response: ServerResponse, caught: unknown): void {
  const error = caught instanceof SimError ? caught : new SimError(500, `simulator failure: ${(caught as Error)?.message ?? String(caught)}`);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify(googleErrorBody(error));
  response.writeHead(error.status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(Buffer.byteLength(text)),
    ...(error.status === 429 ? { 'retry-after': String(error.retryAfterSeconds) } : {}),
  });
  response.end(text);
}
