// Page cursors over a monotonic integer id (files, generations): newest first, the next page
// starts below the last id seen, so pages never overlap or skip under inserts. The spec's
// cursor is that integer itself; the base64 `kind:id` cursors handed out before are still
// read, so a client holding one keeps its place.
import { InvalidCursorError } from '../util/invalid-cursor-error.js';

/** The id to continue below: an integer (the spec's cursor) or an older opaque cursor of this kind. */
export function decodeIdCursor(kind: string, cursor: string | number): number {
  if (typeof cursor === 'number') {
    if (Number.isSafeInteger(cursor) && cursor > 0) return cursor;
    throw new InvalidCursorError('the cursor must be a positive integer (the next_cursor of the previous page)', cursor);
  }
  if (/^\d{1,15}$/.test(cursor)) return Number(cursor);
  const match = new RegExp(`^${kind}:(\\d{1,15})$`).exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidCursorError('the cursor must be a positive integer (the next_cursor of the previous page)', cursor);
  return Number(match[1]);
}
