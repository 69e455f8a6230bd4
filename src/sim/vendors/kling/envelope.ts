// Kling's answers: `{code, message, request_id, data}` envelopes; errors carry their code with
// the HTTP status of Kling's error table.
import type { ServerResponse } from 'node:http';

const codeStatuses: Readonly<Record<number, number>> = {
  1000: 401, 1001: 401, 1002: 401, 1003: 401, 1004: 401,
  1100: 429, 1101: 429, 1102: 429, 1103: 403,
  1200: 400, 1201: 400, 1202: 404, 1203: 404,
  1300: 400, 1301: 400, 1302: 429, 1303: 429, 1304: 429,
  5000: 500, 5001: 503, 5002: 504,
};

/** A refusal in Kling's shape: `code` and the HTTP status its table gives (or `httpStatus`). */
export class KlingSimError extends Error {
  readonly httpStatus: number;
  constructor(
    readonly code: number,
    message: string,
    httpStatus?: number,
  ) {
    super(message);
    this.name = 'KlingSimError';
    this.httpStatus = httpStatus ?? codeStatuses[code] ?? 500;
  }
}

export function sendEnvelope(response: ServerResponse, requestId: string, status: number, code: number, message: string, data?: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify({ code, message, request_id: requestId, ...(data === undefined ? {} : { data }) });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}
