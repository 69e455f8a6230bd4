// Page cursors over a monotonic integer id (files, generations): newest first, the next page
// starts below the last id seen, so pages never overlap or skip under inserts. The spec's
// cursor is that integer itself; the base64 `kind:id` cursors handed out before are still
// read, so a client holding one keeps its place.
import { InvalidCursorError } from '../util/invalid-cursor-error.js';

/** The id to continue below: an integer (the spec's cursor) or an older opaque cursor of this kind. */
export function decodeIdCursor(kind: string, cursor: string | number): number {
  return readIdCursor(kind, cursor).id;
}

/**
 * The cursor read, saying whether it was an older opaque one: where the spec's integer is no
 * longer the row id (generations: the item's id within its type), an opaque cursor still holds
 * a row id, and the caller reads it as one.
 */
export function readIdCursor(kind: string, cursor: string | number): { id: number; opaque: boolean } {
  if (typeof cursor === 'number') {
    if (Number.isSafeInteger(cursor) && cursor > 0) return { id: cursor, opaque: false };
    throw new InvalidCursorError('the cursor must be a positive integer (the next_cursor of the previous page)', cursor);
  }
  if (/^\d{1,15}$/.test(cursor)) return { id: Number(cursor), opaque: false };
  const match = new RegExp(`^${kind}:(\\d{1,15})$`).exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidCursorError('the cursor must be a positive integer (the next_cursor of the previous page)', cursor);
  return { id: Number(match[1]), opaque: true };
}
