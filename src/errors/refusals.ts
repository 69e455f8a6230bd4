// The refusals several layers share, worded once so messages read the same everywhere
// (authentication, scopes, the database, validation). Pure.
import { echoedInput, maxDetailEntries } from '../validation/echoed-input.js';
import type { ValidationDetail } from '../validation/zod-details.js';
import { GatewayError } from './gateway-error.js';

export const unauthorized = (message = 'Missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>".') =>
  new GatewayError('invalid_api_key', message);

export const invalidKey = () => unauthorized('Invalid API key: it is unknown or has been revoked.');

export const forbiddenScope = (scope: string) =>
  new GatewayError('insufficient_scope', `This API key lacks the "${scope}" scope needed here. Create a key with --scopes ${scope} (gateway keys create).`, { param: null });

/** Seconds a client is asked to wait while the database is unreachable. */
export const databaseRetryAfterSeconds = 2;

/**
 * The database cannot be reached (src/db/errors.ts): a 503 the client may retry after a short
 * wait — recovery needs no restart, the next request after the database is back succeeds.
 */
export const databaseUnavailable = () =>
  new GatewayError('database_unavailable', 'The database is unreachable at the moment; retry in a few seconds.', {
    headers: { 'retry-after': String(databaseRetryAfterSeconds) },
  });

export function validationFailed(details: readonly ValidationDetail[]): GatewayError {
  // Bounded whatever the request: at most maxDetailEntries entries, each echoing a bounded input.
  const detail = details.slice(0, maxDetailEntries).map((entry) => {
    const loc = entry.loc.map((part) => (typeof part === 'string' && part.length > 200 ? `${part.slice(0, 200)}…` : part)); // a key may be any length
    return 'input' in entry ? { ...entry, loc, input: echoedInput(entry.input) } : { ...entry, loc };
  });
  const first = detail[0]!;
  const where = first.loc.join('.');
  const param = first.loc.length > 1 ? first.loc.slice(1).join('.') : null;
  return new GatewayError('validation_error', `${where}: ${first.msg}`, { param, detail });
}
