// Errors as GigaChat answers them: {"status": 401, "message": "Unauthorized"}; the OAuth
// endpoint answers {"code": 4, "message": "…"}.
import type { ServerResponse } from 'node:http';
import { sendJsonAnswer } from '../prefixed-wire.js';

export class GigachatSimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The OAuth endpoint's numeric code; chat errors have none. */
    readonly code?: number,
  ) {
    super(message);
  }
}

export function sendGigachatError(response: ServerResponse, error: GigachatSimError): void {
  const body = error.code !== undefined ? { code: error.code, message: error.message } : { status: error.status, message: error.message };
  sendJsonAnswer(response, error.status, body, error.status === 429 ? { 'retry-after': '1' } : {});
}
