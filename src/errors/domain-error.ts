// The base of the errors a domain module throws to refuse something (an unknown account, a
// spent budget, a mistyped amount): the error names its own catalog code and gives the words a
// client or operator reads, so the one mapping (to-gateway-error.ts) looks the error up instead of
// knowing every module, and src/errors/ stays below all of them. The facts stay fields of the
// subclass (the amounts, the id); the message of the Error itself stays the module's own wording,
// which the CLI prints and operators' scripts match.
import type { ErrorCode } from './catalog.js';
import { GatewayError } from './gateway-error.js';

export abstract class DomainError extends Error {
  /** What the refusal is in the catalog (src/errors/catalog.ts). */
  abstract readonly catalogCode: ErrorCode;

  /**
   * Where it is the user's to fix. `cli`: a command's argument or what a process runs on; met
   * over HTTP it is the gateway's own bug, answered as a logged 500.
   */
  readonly seenIn: 'http, cli' | 'cli' = 'http, cli';

  /** The refusal as a client reads it; by default the error's own message. */
  toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, this.message);
  }
}
