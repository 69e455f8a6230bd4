// File rows with their blobs, written as Files.save writes them but straight into the table and
// a given store, so that storage tests (blob migration) depend only on the files table.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { BlobStore } from '../../src/storage/blob-store.js';

export interface MadeFile {
  readonly id: number;
  readonly key: string;
  readonly data: Buffer;
}

/** `size` bytes of a pattern that differs per size, as a temporary file (expiring in an hour) unless told otherwise. */
export async function makeFile(
  db: Knex,
  store: BlobStore,
  accountId: string,
  now: number,
  size: number,
  options: { expiresAt?: number | null; permanent?: boolean; deletedAt?: number; mediaType?: string } = {},
): Promise<MadeFile> {
  const data = Buffer.alloc(size);
  for (let i = 0; i < size; i++) data[i] = (i * 7 + size) % 251;
  const key = `2026-11-25/blob_${size}_${Math.random().toString(36).slice(2)}.png`;
  await store.put(key, data, options.mediaType ?? 'image/png');
  const [row] = await db('files')
    .insert({
      account_id: accountId,
      purpose: 'upload',
      media_type: options.mediaType ?? 'image/png',
      filename: null,
      bytes: size,
      sha256: createHash('sha256').update(data).digest('hex'),
      storage_key: key,
      permanent: options.permanent ?? false,
      created_at: now,
      expires_at: options.expiresAt === undefined ? now + 3_600_000 : options.expiresAt,
      deleted_at: options.deletedAt ?? null,
    })
    .returning(['id']);
  return { id: Number(row.id), key, data };
}
