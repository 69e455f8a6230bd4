// Where file bytes live, behind one interface: a local directory (one machine, or a directory
// every instance shares) or an S3-compatible object store (many machines). Bytes move as
// streams both ways, so neither a large upload nor a 206 of a large video is held in memory;
// a write reports the size and SHA-256 it measured on the way through.
// Keys are chosen by the gateway (files.ts): "2026-11-25/blob_….mp4", nothing a client sends.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { fileContentMissing, storageUnavailable } from '../errors/refusals.js';

/** Inclusive byte positions, as in an HTTP Range header. */
export interface BlobRange {
  readonly start: number;
  readonly end: number;
}

export interface BlobWritten {
  readonly bytes: number;
  readonly sha256: string;
}

export interface BlobStore {
  /** "local directory /var/lib/gateway/files", "s3 bucket gw at http://minio:9000": for logs, readiness and errors. */
  readonly description: string;
  /** Writes a whole blob; a key is never seen half-written (a failed write leaves nothing behind it). */
  put(key: string, body: Uint8Array | Readable, mediaType: string): Promise<BlobWritten>;
  /**
   * A stream of the blob, or of `range` of it. Rejects before any byte is sent when the blob is
   * missing (BlobMissingError) or the store cannot be reached (BlobStoreUnavailableError), so a
   * caller can still answer with an error instead of a cut body.
   */
  open(key: string, range?: BlobRange): Promise<Readable>;
  /** The blob's size, or undefined when there is no such blob. */
  stat(key: string): Promise<{ bytes: number } | undefined>;
  /** Removes a blob; removing a missing one is not an error (a retried garbage collection). */
  delete(key: string): Promise<void>;
  /** Resolves when the store can be read and written (readiness, `serve` start-up). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** The blob a file row names is not in the store (removed by hand, or the store was switched without migrating). */
export class BlobMissingError extends DomainError {
  override readonly catalogCode = 'file_content_missing';

  constructor(
    readonly key: string,
    readonly store: string,
    /** The file whose bytes these were, when the caller knows it (src/storage/files.ts). */
    readonly fileId?: number,
  ) {
    super(`the blob "${key}"${fileId === undefined ? '' : ` of file ${fileId}`} is missing from the ${store}`);
    this.name = 'BlobMissingError';
  }

  override toGatewayError(): GatewayError {
    return fileContentMissing(this.fileId);
  }
}

/** The store did not answer, or refused us (credentials, permissions): worth retrying later, not the client's fault. */
export class BlobStoreUnavailableError extends DomainError {
  override readonly catalogCode = 'storage_unavailable';

  constructor(
    readonly store: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the ${store} is unavailable: ${reason}`, options);
    this.name = 'BlobStoreUnavailableError';
  }

  override toGatewayError(): GatewayError {
    return storageUnavailable();
  }
}

/** Keys are the gateway's own; anything else is a bug, refused before it reaches a path or a URL. */
export function assertBlobKey(key: string): void {
  if (!/^[a-z0-9/_.-]+$/.test(key) || key.includes('..') || key.startsWith('/')) throw new Error(`invalid blob key "${key}"`);
}

/** Counts and hashes what flows through, for stores that write a stream. */
export class MeasuringStream extends Transform {
  private readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
    done(null, chunk);
  }

  written(): BlobWritten {
    return { bytes: this.bytes, sha256: this.hash.digest('hex') };
  }
}

/**
 * Watches a put's source for its own failure (a client's upload cut off, a download that
 * broke), so a store reports that error as it is and not as the store being unavailable.
 */
export function sourceFailure(body: Uint8Array | Readable): { error: Error | undefined } {
  const seen: { error: Error | undefined } = { error: undefined };
  if (!(body instanceof Uint8Array)) body.once('error', (error: Error) => (seen.error ??= error));
  return seen;
}

export function measureBytes(data: Uint8Array): BlobWritten {
  return { bytes: data.byteLength, sha256: createHash('sha256').update(data).digest('hex') };
}

/** Reads a whole stream (a job's input file sent upstream in one request): only where the bytes are needed at once. */
export async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function toReadable(body: Uint8Array | Readable): Readable {
  return body instanceof Readable ? body : Readable.from([Buffer.from(body.buffer, body.byteOffset, body.byteLength)]);
}
