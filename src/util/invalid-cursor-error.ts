// A page cursor that is not one the endpoint handed out (balance history's opaque cursor, the
// integer cursors of files and generations). One class for every list: a 422 on the query
// parameter that carried it.
import { DomainError } from '../errors/domain-error.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { validationFailed } from '../errors/refusals.js';

export class InvalidCursorError extends DomainError {
  override readonly catalogCode = 'validation_error';

  constructor(
    message: string,
    /** The cursor as the client sent it (echoed in the 422 `detail`). */
    readonly cursor: string | number,
    /** The query parameter that carried it: `cursor`, or an alias such as `after`. */
    readonly parameter = 'cursor',
  ) {
    super(message);
    this.name = 'InvalidCursorError';
  }

  /** The same refusal, naming the alias the client used. */
  carriedIn(parameter: string): InvalidCursorError {
    return new InvalidCursorError(this.message, this.cursor, parameter);
  }

  override toGatewayError(): GatewayError {
    return validationFailed([{ loc: ['query', this.parameter], msg: `Value error, ${this.message}`, type: 'value_error', input: this.cursor }]);
  }
}
