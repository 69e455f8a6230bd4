// A page cursor that is not one the endpoint handed out (balance history's opaque cursor, the
// integer cursors of files and generations). One class for every list: the catalog maps it to a
// 422 on the query parameter that carried it (src/errors/to-gateway-error.ts).
export class InvalidCursorError extends Error {
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
}
