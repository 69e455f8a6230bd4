// Stored files: every generated artifact and every upload. The bytes live in the blob store
// (written first, atomically), the row here. Files are temporary (storage.temp_ttl) unless
// kept; keeping is bounded by a per-account quota of permanent bytes; expired files lose
// their bytes to the garbage collector (the runner's chore, and `gateway files gc`).
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { BlobMissingError, type BlobRange, type BlobStore, readAll } from './blob-store.js';
import { newId } from '../util/ids.js';
import { decodeIdCursor } from './cursor.js';

export interface StoredFile {
  readonly id: number;
  readonly accountId: string;
  readonly purpose: string;
  readonly mediaType: string;
  readonly filename: string | null;
  readonly bytes: number;
  readonly sha256: string;
  readonly permanent: boolean;
  /** Unix ms. */
  readonly createdAt: number;
  /** Unix ms; null when permanent. */
  readonly expiresAt: number | null;
  readonly storageKey: string;
}

export class FileNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(readonly fileId: number | string) {
    super(`no file ${fileId}`);
    this.name = 'FileNotFoundError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, `No file found with id '${this.fileId}'.`);
  }
}

export class QuotaExceededError extends DomainError {
  override readonly catalogCode = 'quota_exceeded';

  constructor(
    readonly usedBytes: number,
    readonly limitBytes: number,
    readonly fileBytes: number,
  ) {
    super(`keeping this file (${fileBytes} bytes) would exceed the permanent storage quota: ${usedBytes} of ${limitBytes} bytes are used`);
    this.name = 'QuotaExceededError';
  }
}

const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'video/mp4': 'mp4',
};

type FileRow = Record<string, unknown>;

function fileFromRow(row: FileRow): StoredFile {
  return {
    id: Number(row.id),
    accountId: String(row.account_id),
    purpose: String(row.purpose),
    mediaType: String(row.media_type),
    filename: (row.filename as string | null) ?? null,
    bytes: Number(row.bytes),
    sha256: String(row.sha256),
    permanent: Boolean(row.permanent),
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at),
    storageKey: String(row.storage_key),
  };
}

/** The public JSON of a file (GET /v1/files, the CLI). */
export function publicFile(file: StoredFile): Record<string, unknown> {
  return {
    id: file.id,
    object: 'file',
    purpose: file.purpose,
    media_type: file.mediaType,
    filename: file.filename,
    bytes: file.bytes,
    sha256: file.sha256,
    permanent: file.permanent,
    created_at: Math.floor(file.createdAt / 1000),
    expires_at: file.expiresAt === null ? null : Math.floor(file.expiresAt / 1000),
  };
}

export class Files {
  constructor(
    private readonly db: Knex,
    private readonly blobs: BlobStore,
    private readonly tempTtlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stores bytes for an account as a temporary file: the blob first, then the row. `data` may be
   * a stream (an upload, a download): its size and SHA-256 are measured by the store on the way
   * through. A store that fails throws BlobStoreUnavailableError and no row is written.
   */
  async save(
    accountId: string,
    purpose: string,
    mediaType: string,
    data: Uint8Array | Readable,
    options: { filename?: string; expiresAt?: number; within?: Knex.Transaction } = {},
  ): Promise<StoredFile> {
    const createdAt = this.now();
    const day = new Date(createdAt).toISOString().slice(0, 10);
    // A random key (the row id is not known before the insert): no two files share bytes.
    const storageKey = `${day}/${newId('blob')}.${extensions[mediaType] ?? 'bin'}`;
    const { bytes, sha256 } = await this.blobs.put(storageKey, data, mediaType);
    const row = {
      account_id: accountId,
      purpose,
      media_type: mediaType,
      // 255 characters (code points: what varchar(255) counts), never half of a surrogate pair.
      filename: options.filename === undefined ? null : Array.from(options.filename).slice(0, 255).join(''),
      bytes,
      sha256,
      storage_key: storageKey,
      permanent: false,
      created_at: createdAt,
      expires_at: options.expiresAt ?? createdAt + this.tempTtlMs,
    };
    const [inserted] = await (options.within ?? this.db)('files').insert(row).returning(['id']);
    return fileFromRow({ ...row, id: inserted.id });
  }

  /** The file, if it exists, is `accountId`'s (null: any account) and has not expired or been removed. */
  async get(accountId: string | null, id: number, within?: Knex.Transaction): Promise<StoredFile | undefined> {
    if (!Number.isSafeInteger(id) || id <= 0) return undefined;
    const query = (within ?? this.db)('files').where({ id }).whereNull('deleted_at');
    if (accountId !== null) query.andWhere({ account_id: accountId });
    const row = await query.first();
    if (!row) return undefined;
    const file = fileFromRow(row);
    return file.expiresAt !== null && file.expiresAt <= this.now() ? undefined : file;
  }

  /** Those of `ids` that are `accountId`'s and neither expired nor removed (a page of generations' files, in one query). */
  async getMany(accountId: string, ids: readonly number[]): Promise<StoredFile[]> {
    const wanted = ids.filter((id) => Number.isSafeInteger(id) && id > 0);
    if (wanted.length === 0) return [];
    const rows = await this.db('files').whereIn('id', wanted).andWhere({ account_id: accountId }).whereNull('deleted_at');
    const now = this.now();
    return rows.map(fileFromRow).filter((file) => file.expiresAt === null || file.expiresAt > now);
  }

  /**
   * A stream of the file's bytes, or of `range` of them (inclusive positions within file.bytes).
   * Rejects before any byte with BlobMissingError (the row outlived its blob) or
   * BlobStoreUnavailableError (the store cannot be reached).
   */
  async open(file: StoredFile, range?: BlobRange): Promise<Readable> {
    try {
      return await this.blobs.open(file.storageKey, range);
    } catch (error) {
      throw error instanceof BlobMissingError ? new BlobMissingError(error.key, error.store, file.id) : error;
    }
  }

  /** The whole file in memory: only where the bytes are needed at once (a job input sent upstream in one request). */
  async read(file: StoredFile): Promise<Uint8Array> {
    return readAll(await this.open(file));
  }

  /** Newest first; `cursor` is the previous page's nextCursor (the last file id). */
  async list(accountId: string | null, options: { cursor?: string | number; limit: number }): Promise<{ items: StoredFile[]; nextCursor: number | null }> {
    const query = this.db('files')
      .whereNull('deleted_at')
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.now()))
      .orderBy('id', 'desc')
      .limit(options.limit + 1);
    if (accountId !== null) query.andWhere({ account_id: accountId });
    if (options.cursor !== undefined) query.andWhere('id', '<', decodeIdCursor('file', options.cursor));
    const rows = await query;
    const items = rows.slice(0, options.limit).map(fileFromRow);
    return { items, nextCursor: rows.length > options.limit ? items.at(-1)!.id : null };
  }

  /**
   * Makes a file permanent within the account's quota of permanent bytes. The account row is
   * locked first (as every ledger write does), so two keeps racing for the last bytes of the
   * quota are serialized: one succeeds, the other sees the first's bytes counted.
   */
  async keep(accountId: string | null, id: number, quotaBytes: number): Promise<StoredFile> {
    const found = await this.get(accountId, id);
    if (!found) throw new FileNotFoundError(id);
    if (found.permanent) return found;
    return this.db.transaction(async (trx) => {
      // First a no-op write that takes the account row's lock (and SQLite's write lock) for the
      // rest of this transaction; then the file is read again under it.
      await trx('accounts').where({ id: found.accountId }).update({ held_units: trx.raw('held_units') });
      const file = await this.get(found.accountId, id, trx);
      if (!file) throw new FileNotFoundError(id);
      if (file.permanent) return file;
      const used = await trx('files').where({ account_id: file.accountId, permanent: true }).whereNull('deleted_at').sum({ total: 'bytes' }).first();
      const usedBytes = Number(used?.total ?? 0);
      if (usedBytes + file.bytes > quotaBytes) throw new QuotaExceededError(usedBytes, quotaBytes, file.bytes);
      await trx('files').where({ id: file.id }).update({ permanent: true, expires_at: null });
      return { ...file, permanent: true, expiresAt: null };
    });
  }

  /** The bytes of an account's permanent files: what counts against storage.permanent_quota. */
  async permanentBytes(accountId: string): Promise<number> {
    const used = await this.db('files').where({ account_id: accountId, permanent: true }).whereNull('deleted_at').sum({ total: 'bytes' }).first();
    return Number(used?.total ?? 0);
  }

  /**
   * Makes several files of one account permanent together (a generation's images or tracks):
   * all of them within the quota, or none (QuotaExceededError counts the bytes still to keep).
   * Locked like keep(). FileNotFoundError when one of them is gone.
   */
  async keepAll(accountId: string, ids: readonly number[], quotaBytes: number): Promise<StoredFile[]> {
    return this.db.transaction(async (trx) => {
      await trx('accounts').where({ id: accountId }).update({ held_units: trx.raw('held_units') });
      const files: StoredFile[] = [];
      for (const id of ids) {
        const file = await this.get(accountId, id, trx);
        if (!file) throw new FileNotFoundError(id);
        files.push(file);
      }
      const toKeep = files.filter((file) => !file.permanent);
      const addedBytes = toKeep.reduce((sum, file) => sum + file.bytes, 0);
      if (toKeep.length === 0) return files;
      const used = await trx('files').where({ account_id: accountId, permanent: true }).whereNull('deleted_at').sum({ total: 'bytes' }).first();
      const usedBytes = Number(used?.total ?? 0);
      if (usedBytes + addedBytes > quotaBytes) throw new QuotaExceededError(usedBytes, quotaBytes, addedBytes);
      await trx('files').whereIn('id', toKeep.map((file) => file.id)).update({ permanent: true, expires_at: null });
      return files.map((file) => ({ ...file, permanent: true, expiresAt: null }));
    });
  }

  /** Removes a file's bytes at once (a client deleted what it belongs to); its row stays, marked deleted. */
  async remove(accountId: string, id: number): Promise<boolean> {
    const file = await this.get(accountId, id);
    if (!file) return false;
    await this.blobs.delete(file.storageKey);
    return (await this.db('files').where({ id }).whereNull('deleted_at').update({ deleted_at: this.now() })) > 0;
  }

  /**
   * Removes the bytes of expired temporary files and marks their rows deleted, one file at a
   * time: the blob first, so a store that fails (BlobStoreUnavailableError, thrown on) leaves
   * that row and the rest unmarked, to be collected on the next round.
   */
  async collectGarbage(limit = 500): Promise<{ files: number; bytes: number }> {
    const expired = await this.db('files').whereNull('deleted_at').andWhere('permanent', false).andWhere('expires_at', '<=', this.now()).orderBy('expires_at').limit(limit);
    let files = 0;
    let bytes = 0;
    for (const row of expired) {
      const file = fileFromRow(row);
      await this.blobs.delete(file.storageKey);
      const updated = await this.db('files').where({ id: file.id }).whereNull('deleted_at').update({ deleted_at: this.now() });
      if (updated > 0) {
        files++;
        bytes += file.bytes;
      }
    }
    return { files, bytes };
  }
}
