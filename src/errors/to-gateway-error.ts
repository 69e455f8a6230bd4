// THE one place where errors become catalog errors, for the HTTP shell, the CLI and the traces'
// error type alike. A lookup, not a list of modules: a domain error names its catalog code and
// its client's wording itself (domain-error.ts), so nothing here imports a domain module and
// src/errors/ stays below every folder that throws. What is left to recognize are the errors no
// module of the gateway words: a request's failed validation, a driver's unreachable database,
// the body parser's refusals, a RangeError of a command's amount. A surface names who asks: the
// body parser's status-bearing refusals are HTTP's only; the CLI's argument and infrastructure
// errors (seenIn `cli`) are the CLI's only (over HTTP they would be a bug, a logged 500).
import { RequestValidationError } from '../validation/zod-details.js';
import { isDatabaseUnavailable } from './database-unavailable.js';
import { DomainError } from './domain-error.js';
import { GatewayError } from './gateway-error.js';
import { databaseUnavailable, validationFailed } from './refusals.js';

export type Surface = 'http' | 'cli';

/** The catalog error for a known failure; undefined for anything else (a logged 500, a stack on the CLI). */
export function toGatewayError(error: unknown, surface: Surface): GatewayError | undefined {
  if (error instanceof GatewayError) return error;
  if (error instanceof RequestValidationError) return validationFailed(error.details);
  if (error instanceof DomainError && error.seenIn !== 'cli') return error.toGatewayError();
  // After the domain errors (a blob store's refused connection is the store's, not the
  // database's), before the CLI's own: an operator's "cannot reach PostgreSQL" carries the
  // driver's refusal as its cause, and is the database's 503 code on both surfaces.
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  return surface === 'http' ? fromHttpParser(error) : fromCommand(error);
}

/** Body parser and router refusals (malformed JSON, body too large, wrong charset, wrong method) carry their status. */
function fromHttpParser(error: unknown): GatewayError | undefined {
  const status = (error as { status?: number } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return new GatewayError('request_too_large', 'Request body is too large.');
  const message = status === 405 ? (error as Error).message : `Malformed request: ${(error as Error).message}`;
  return new GatewayError('invalid_request', message, { status });
}

/** What only commands meet: their arguments, the configuration and what the process runs on. */
function fromCommand(error: unknown): GatewayError | undefined {
  if (error instanceof DomainError) return error.toGatewayError();
  // The ledger's and corrections' refusal of an amount (zero, negative, a reason missing): a plain RangeError.
  if (error instanceof RangeError) return new GatewayError('invalid_amount', error.message);
  return undefined;
}
