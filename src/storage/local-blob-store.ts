// Blobs as files under one directory: storage.dir. Writes go to a temporary file that is
// renamed into place, so a crash never leaves a half file behind a key.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, constants, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, BlobMissingError, type BlobRange, type BlobStore, BlobStoreUnavailableError, type BlobWritten, measureBytes, MeasuringStream, sourceFailure } from './blob-store.js';

export class LocalBlobStore implements BlobStore {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `local directory ${root}`;
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, body: Uint8Array | Readable, _mediaType: string): Promise<BlobWritten> {
    const target = this.pathOf(key);
    // A failing source (an upload cut off) is the caller's error, thrown as it is; anything else
    // here is the directory's (full, read-only, gone), reported as the store being unavailable.
    const source = sourceFailure(body);
    try {
      await mkdir(path.dirname(target), { recursive: true });
    } catch (error) {
      throw this.unavailable(error);
    }
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      let written: BlobWritten;
      if (body instanceof Uint8Array) {
        const handle = await open(temporary, 'w');
        try {
          await handle.writeFile(body);
        } finally {
          await handle.close();
        }
        written = measureBytes(body);
      } else {
        const measuring = new MeasuringStream();
        await pipeline(body, measuring, createWriteStream(temporary));
        written = measuring.written();
      }
      await rename(temporary, target);
      return written;
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw source.error ?? this.unavailable(error);
    }
  }

  private unavailable(error: unknown): Error {
    if (error instanceof BlobStoreUnavailableError) return error;
    return new BlobStoreUnavailableError(this.description, (error as Error).message, { cause: error });
  }

  async open(key: string, range?: BlobRange): Promise<Readable> {
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobMissingError(key, this.description);
      throw this.unavailable(error);
    }
    // The stream owns the handle from here and closes it at its end or on destroy.
    return handle.createReadStream(range === undefined ? {} : { start: range.start, end: range.end });
  }

  async stat(key: string): Promise<{ bytes: number } | undefined> {
    try {
      return { bytes: (await stat(this.pathOf(key))).size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new BlobStoreUnavailableError(this.description, (error as Error).message, { cause: error });
    }
  }

  async delete(key: string): Promise<void> {
    const target = this.pathOf(key);
    try {
      await rm(target, { force: true });
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async check(): Promise<void> {
    try {
      // Private like the data directory it is usually in (src/db/private-files.ts): every account's files.
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      await access(this.root, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw new BlobStoreUnavailableError(this.description, (error as Error).message, { cause: error });
    }
  }

  async close(): Promise<void> {}
}
