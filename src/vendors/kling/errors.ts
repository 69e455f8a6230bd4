// Kling's errors: every answer is an envelope `{code, message, request_id, data}` whose `code`
// is the real outcome (0 = success), sent with HTTP 200 for many errors as well as with the
// HTTP status Kling's error table gives. Codes → UpstreamError:
//   1000–1004 authentication (token missing, invalid, not yet valid, expired)  401, final
//   1100–1102 account: abnormal, in arrears, resource pack used up            402, final
//   1103, 1304 no permission, IP not on the allow list                          403, final
//   1200, 1201 bad parameters                                                   400, final
//   1202, 1203 no such method / resource (a task, a model)                      404, final
//   1300, 1301 platform / content-safety policy                                 400, final
//   1302, 1303 rate limit, concurrency of the resource pack                     429, retried
//   5000–5002 server error, unavailable, timeout                                500/503/504, retried
import { isObject, stringOf } from '../shared/json.js';
import { isRetryableStatus } from '../shared/upstream-errors.js';
import type { MediaHttpResponse } from '../media-types.js';
import { invalidResponse, jsonOf } from '../shared/wire.js';
import { UpstreamError } from '../types.js';

const codeStatuses: Readonly<Record<number, number>> = {
  1000: 401,
  1001: 401,
  1002: 401,
  1003: 401,
  1004: 401,
  1100: 402,
  1101: 402,
  1102: 402,
  1103: 403,
  1200: 400,
  1201: 400,
  1202: 404,
  1203: 404,
  1300: 400,
  1301: 400,
  1302: 429,
  1303: 429,
  1304: 403,
  5000: 500,
  5001: 503,
  5002: 504,
};

/** The UpstreamError of a Kling code; `httpStatus` decides for a code the table does not know. */
export function klingCodeError(code: number, message: string | undefined, httpStatus: number): UpstreamError {
  const status = codeStatuses[code] ?? (httpStatus >= 400 ? httpStatus : 502);
  const text = `Kling answered code ${code}${message ? `: ${message}` : ''}`;
  const type = code >= 1300 && code <= 1301 ? 'content_policy' : String(code);
  return new UpstreamError(text, status, isRetryableStatus(status), type);
}

/** Errors with an HTTP status other than 2xx: the envelope's code when there is one, else the status. */
export function parseKlingError(status: number, bodyText: string): UpstreamError {
  try {
    const body = JSON.parse(bodyText) as unknown;
    if (isObject(body) && typeof body.code === 'number' && body.code !== 0) return klingCodeError(body.code, stringOf(body.message), status);
  } catch {
    // not JSON (a proxy's page): the status decides
  }
  return new UpstreamError(`Kling answered HTTP ${status}${bodyText ? `: ${bodyText.slice(0, 300)}` : ''}`, status, isRetryableStatus(status), String(status));
}

/** The envelope's `data` of a 2xx answer; its non-zero `code` as the UpstreamError it means. */
export function klingData(response: Pick<MediaHttpResponse, 'body' | 'status'>, what: string): Record<string, unknown> {
  const body = jsonOf(response, what);
  if (!isObject(body)) throw invalidResponse(`Kling's ${what} answer is not an envelope`);
  const code = typeof body.code === 'number' ? body.code : Number.NaN;
  if (code !== 0) {
    if (Number.isNaN(code)) throw invalidResponse(`Kling's ${what} answer has no code`);
    throw klingCodeError(code, stringOf(body.message), response.status);
  }
  if (!isObject(body.data)) throw invalidResponse(`Kling's ${what} answer has no data`);
  return body.data;
}
