// Opaque page cursors over a monotonic integer id (files, generations): newest first, the
// next page starts below the last id seen, so pages never overlap or skip under inserts.
export class InvalidCursorError extends Error {}

export function encodeIdCursor(kind: string, id: number | string): string {
  return Buffer.from(`${kind}:${id}`).toString('base64url');
}

export function decodeIdCursor(kind: string, cursor: string): number {
  const match = new RegExp(`^${kind}:(\\d{1,15})$`).exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidCursorError('the cursor is not one this endpoint returned');
  return Number(match[1]);
}
