// The refusals several layers share, worded once so messages read the same everywhere
// (authentication, scopes, the database, validation). Pure.
import { echoedInput, maxDetailEntries } from '../validation/echoed-input.js';
import type { ValidationDetail } from '../validation/zod-details.js';
import { GatewayError } from './gateway-error.js';

export const unauthorized = (message = 'Missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>".') =>
  new GatewayError('invalid_api_key', message);

export const invalidKey = () => unauthorized('Invalid API key: it is unknown or has been revoked.');

// What a customer reads (an API client, the cabinet) says what to do in the cabinet, never a CLI
// command: the customer cannot run one (test/errors/customer-messages.test.ts).
export const forbiddenScope = (scope: string) =>
  new GatewayError('insufficient_scope', `This API key lacks the "${scope}" scope needed here. Add the "${scope}" scope to this key on the API keys page of the cabinet, or use a key that has it.`, { param: null });

/** Seconds a client is asked to wait while the database is unreachable. */
export const databaseRetryAfterSeconds = 2;

/**
 * The database cannot be reached (database-unavailable.ts): a 503 the client may retry after a short
 * wait — recovery needs no restart, the next request after the database is back succeeds.
 */
export const databaseUnavailable = () =>
  new GatewayError('database_unavailable', 'The database is unreachable at the moment; retry in a few seconds.', {
    headers: { 'retry-after': String(databaseRetryAfterSeconds) },
  });

/** Seconds a client is asked to wait while the blob store is unreachable. */
export const storageRetryAfterSeconds = 5;

/**
 * The blob store (storage.blobs) cannot be reached: a 503 the client may retry. The message
 * does not name the store (an operator's detail): the log and /readyz do.
 */
export const storageUnavailable = () =>
  new GatewayError('storage_unavailable', 'File storage is unreachable at the moment; nothing was charged. Retry in a few seconds.', {
    headers: { 'retry-after': String(storageRetryAfterSeconds) },
  });

/** A file row whose bytes are gone from the blob store: the operator's to look into, never the client's. */
export const fileContentMissing = (fileId?: number) =>
  new GatewayError(
    'file_content_missing',
    `The content of ${fileId === undefined ? 'this file' : `file ${fileId}`} is missing from the gateway's file storage: the file exists, but its bytes are gone from the store. Ask the operator to check the storage.`,
  );

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
