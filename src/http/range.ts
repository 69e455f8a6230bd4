// Serving stored bytes with HTTP Range (RFC 9110 §14): one `bytes=` range per request —
// `a-b`, open-ended `a-`, suffix `-n` — answered 206 with Content-Range; an unsatisfiable
// range is 416 with `bytes */N`; several ranges get the whole file (200), which the RFC
// allows and keeps us out of multipart/byteranges. `If-Range` with the current ETag (or a
// date not older than Last-Modified) honours the range, anything else sends the whole file.
// The bytes are streamed from their store: the size comes from the caller (the file's row), so
// the status is decided here, and only the range answered is read from the store.
import type { Readable } from 'node:stream';
import type { Context } from './state.js';

export interface Content {
  /** The whole content's length in bytes. */
  readonly size: number;
  /**
   * A stream of the bytes, or of [start, end] of them (inclusive). Rejects before any byte when
   * they cannot be read, so the error is answered instead of a cut body.
   */
  readonly open: (range?: { start: number; end: number }) => Promise<Readable>;
  readonly mediaType: string;
  readonly lastModifiedMs: number;
  /** A strong ETag, quoted. */
  readonly etag: string;
  readonly filename?: string;
}

/** [start, end] inclusive, 'unsatisfiable', or undefined (no usable single range: whole file). */
export function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined; // several ranges, other units or garbage: ignored
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}

function ifRangeHolds(ifRange: string | undefined, content: Content): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === content.etag;
  const date = Date.parse(value);
  // HTTP dates have whole seconds: the file counts as unmodified when modified within that second.
  return Number.isFinite(date) && Math.floor(content.lastModifiedMs / 1000) * 1000 <= date;
}

/**
 * `inline` with the name twice (RFC 6266): `filename` for old clients, in printable ASCII
 * without `"`, `\` or `%` (some clients percent-decode it), anything else as `_`; and the exact
 * name as `filename*=UTF-8''…`, percent-encoded down to RFC 5987's attr-chars.
 */
export function contentDisposition(name: string): string {
  const filename = (name as string & { toWellFormed(): string }).toWellFormed(); // encodeURIComponent throws on a lone surrogate
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

export async function sendContent(ctx: Context, content: Content): Promise<void> {
  const { size } = content;
  const range = ifRangeHolds(ctx.get('if-range') || undefined, content) ? parseRange(ctx.get('range') || undefined, size) : undefined;
  if (range === 'unsatisfiable') {
    setContentHeaders(ctx, content);
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${size}`);
    ctx.body = ''; // not null: Koa would turn a null body into a 204
    return;
  }
  // Opened before any header is set: a missing blob or an unreachable store is thrown from
  // here and answered as an error (src/storage/blob-store.ts words it), not as a cut 200.
  const body = range === undefined ? await content.open() : await content.open({ start: range[0], end: range[1] });
  setContentHeaders(ctx, content);
  ctx.type = content.mediaType;
  ctx.body = body;
  if (range === undefined) {
    ctx.status = 200;
    ctx.length = size;
    return;
  }
  const [start, end] = range;
  ctx.status = 206;
  ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  ctx.length = end - start + 1;
}

function setContentHeaders(ctx: Context, content: Content): void {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', content.etag);
  ctx.set('Last-Modified', new Date(content.lastModifiedMs).toUTCString());
  if (content.filename) ctx.set('Content-Disposition', contentDisposition(content.filename));
}
