// Errors as Yandex Cloud's REST gateway answers them: {"error": {grpcCode, httpCode, message, httpStatus, details}}.
import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { sendJsonAnswer } from '../prefixed-wire.js';

const grpcCodes: Readonly<Record<number, number>> = { 400: 3, 401: 16, 403: 7, 404: 5, 429: 8, 500: 13, 503: 14, 504: 4 };

export class YandexSimError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function yandexErrorBody(status: number, message: string): unknown {
  return { error: { grpcCode: grpcCodes[status] ?? (status >= 500 ? 13 : 3), httpCode: status, message, httpStatus: STATUS_CODES[status] ?? 'Error', details: [] } };
}

export function sendYandexError(response: ServerResponse, status: number, message: string): void {
  sendJsonAnswer(response, status, yandexErrorBody(status, message));
}
