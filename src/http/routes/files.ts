// GET /v1/files, GET /v1/files/{id}, GET /v1/files/{id}/content, PATCH /v1/files/{id}/keep:
// the key's own account's stored files (generated results and uploads). An id that is not an
// integer is a 422 (the spec types it so); another account's, expired or removed is a 404 like
// an unknown one.
import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import { publicFile, type StoredFile } from '../../storage/files.js';
import { InvalidCursorError } from '../../util/invalid-cursor-error.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { sendContent } from '../range.js';
import type { Context, Handler } from '../state.js';

/** `cursor` is the spec's (an integer, the previous page's next_cursor); `after` is read as its alias. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
  after: z.string().min(1).max(200).optional(),
});

/** A page of items in the list shape every list endpoint answers. */
export function listPage(data: unknown[], nextCursor: number | null): Record<string, unknown> {
  return { object: 'list', data, has_more: nextCursor !== null, next_cursor: nextCursor };
}

/**
 * Runs a read of the page the query asks for. A cursor that is no integer is a 422 on the
 * parameter that carried it (src/util/invalid-cursor-error.ts): `cursor`, or its alias `after`.
 */
export async function withCursor<T>(query: { cursor?: string; after?: string }, read: (cursor: string | undefined) => Promise<T>): Promise<T> {
  if (query.cursor !== undefined || query.after === undefined) return read(query.cursor);
  try {
    return await read(query.after);
  } catch (error) {
    throw error instanceof InvalidCursorError ? error.carriedIn('after') : error;
  }
}

const notFound = (id: string) => new GatewayError('not_found', `No file found with id '${id}'.`);

/** A path id the spec types as an integer: anything else is a 422 naming it (an unknown integer is a 404). */
export function integerPathId(raw: string, name = 'id'): number | undefined {
  if (!/^\d+$/.test(raw)) throw invalid(['path', name], 'Input should be a valid integer, unable to parse string as an integer', raw, 'int_parsing');
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

export async function ownFile(ctx: Context, services: ServerServices): Promise<StoredFile> {
  const raw = ctx.params.id ?? '';
  const id = integerPathId(raw);
  const file = id !== undefined ? await services.files.get(ctx.state.apiKey!.accountId, id) : undefined;
  if (!file) throw notFound(raw);
  return file;
}

export const listFiles: Handler = async (ctx, services) => {
  const query = validate(pageQuery, ctx.query, 'query');
  const page = await withCursor(query, (cursor) => services.files.list(ctx.state.apiKey!.accountId, { limit: query.limit, cursor }));
  ctx.body = listPage(page.items.map(publicFile), page.nextCursor);
};

export const retrieveFile: Handler = async (ctx, services) => {
  ctx.body = publicFile(await ownFile(ctx, services));
};

/**
 * A stored file's bytes streamed from the blob store, with Range (only the range is read from
 * the store); its content hash is the ETag. A blob gone from the store is a 404
 * `file_content_missing`, a store that cannot be reached a 503 `storage_unavailable`.
 */
export async function sendStoredFile(ctx: Context, services: ServerServices, file: StoredFile): Promise<void> {
  await sendContent(ctx, {
    size: file.bytes,
    open: async (range) => {
      const stream = await services.files.open(file, range);
      // Past the headers nothing can be answered any more: the response is cut, and logged here.
      stream.once('error', (error) => {
        services.logger.error({ err: error, request_id: ctx.state.requestId, file_id: file.id }, 'file content cut off: the blob store failed while it was being sent');
      });
      return stream;
    },
    mediaType: file.mediaType,
    lastModifiedMs: file.createdAt,
    etag: `"${file.sha256.slice(0, 32)}"`,
    filename: file.filename ?? undefined,
  });
}

export const fileContent: Handler = async (ctx, services) => {
  await sendStoredFile(ctx, services, await ownFile(ctx, services));
};

export const keepFile: Handler = async (ctx, services) => {
  const file = await ownFile(ctx, services);
  // Over the quota is a 409, gone meanwhile a 404 (QuotaExceededError, FileNotFoundError: src/storage/files.ts).
  ctx.body = publicFile(await services.files.keep(file.accountId, file.id, services.config.storage.permanentQuotaBytes));
};
