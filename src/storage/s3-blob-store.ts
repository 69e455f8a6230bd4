// Blobs as objects in an S3-compatible store (AWS S3, MinIO, Ceph RGW, Garage, SeaweedFS, R2),
// through the official AWS SDK. Every instance on every machine sees the same objects, which is
// what lets a file made through one instance be served by another.
// The SDK is loaded on first use: a gateway on local storage never pays for it.
import { PassThrough, pipeline, type Readable } from 'node:stream';
import type { BlobStoreConfig } from '../config/load.js';
import { assertBlobKey, BlobMissingError, type BlobRange, type BlobStore, BlobStoreUnavailableError, type BlobWritten, measureBytes, MeasuringStream, sourceFailure } from './blob-store.js';

type S3Config = Extract<BlobStoreConfig, { kind: 's3' }>;
type Sdk = typeof import('@aws-sdk/client-s3');

/** How long a readiness check waits for the store before calling it unreachable. */
const checkTimeoutMs = 3_000;
/** Parts uploaded at once per object: memory held by one upload is part_size × this. */
const uploadConcurrency = 2;

interface Connection {
  readonly sdk: Sdk;
  readonly client: import('@aws-sdk/client-s3').S3Client;
  readonly Upload: typeof import('@aws-sdk/lib-storage').Upload;
}

export class S3BlobStore implements BlobStore {
  readonly description: string;
  private connection: Promise<Connection> | undefined;

  constructor(private readonly config: S3Config) {
    this.description = `S3 bucket "${config.bucket}"${config.prefix ? ` (prefix ${config.prefix})` : ''} at ${config.endpoint ?? `AWS ${config.region}`}`;
  }

  private connect(): Promise<Connection> {
    this.connection ??= (async () => {
      if (this.config.credentialsProblem) throw new BlobStoreUnavailableError(this.description, this.config.credentialsProblem);
      // The gateway pins Node 20 (see docs/development.md); the SDK's notice about its future Node 22 floor is for us, not operators.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const [sdk, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
      const client = new sdk.S3Client({
        endpoint: this.config.endpoint,
        region: this.config.region,
        forcePathStyle: this.config.forcePathStyle,
        // A copy: the config is frozen, and the SDK marks the credentials object it is given ($source).
        credentials: this.config.credentials && { ...this.config.credentials },
        // S3-compatible stores differ in which checksum headers they know; send and check them only where S3 requires it.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
        requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
      });
      return { sdk, client, Upload: storage.Upload };
    })();
    return this.connection;
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.config.prefix}${key}`;
  }

  /** What the SDK threw, as the two failures callers handle: missing (for a key) or unavailable. */
  private failure(error: unknown, key?: string): Error {
    if (error instanceof BlobStoreUnavailableError || error instanceof BlobMissingError) return error;
    const failure = error as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
    const status = failure.$metadata?.httpStatusCode;
    if (failure.name === 'NoSuchBucket') return new BlobStoreUnavailableError(this.description, `the bucket "${this.config.bucket}" does not exist`, { cause: error });
    if (key !== undefined && (failure.name === 'NoSuchKey' || failure.name === 'NotFound' || status === 404)) return new BlobMissingError(key, this.description);
    if (status === 403 || failure.name === 'AccessDenied' || failure.name === 'InvalidAccessKeyId' || failure.name === 'SignatureDoesNotMatch') {
      return new BlobStoreUnavailableError(this.description, `access denied (${failure.name}): check the credentials named in storage.blobs`, { cause: error });
    }
    return new BlobStoreUnavailableError(this.description, failure.message || failure.code || failure.name || String(error), { cause: error });
  }

  async put(key: string, body: Uint8Array | Readable, mediaType: string): Promise<BlobWritten> {
    const Key = this.objectKey(key);
    // A failing source (an upload cut off) is the caller's error, thrown as it is.
    const source = sourceFailure(body);
    const { sdk, client, Upload } = await this.connect();
    try {
      if (body instanceof Uint8Array && body.byteLength <= this.config.partSizeBytes) {
        await client.send(new sdk.PutObjectCommand({ Bucket: this.config.bucket, Key, Body: body, ContentType: mediaType, ContentLength: body.byteLength }));
        return measureBytes(body);
      }
      // A stream, or bytes larger than one part: a multipart upload, aborted by the SDK when it fails,
      // so no partial object stays behind the key.
      const measuring = new MeasuringStream();
      if (body instanceof Uint8Array) measuring.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      else pipeline(body, measuring, () => undefined); // a source error destroys `measuring`, which fails the upload
      const upload = new Upload({
        client,
        params: { Bucket: this.config.bucket, Key, Body: measuring, ContentType: mediaType },
        partSize: this.config.partSizeBytes,
        queueSize: uploadConcurrency,
        leavePartsOnError: false,
      });
      await upload.done();
      return measuring.written();
    } catch (error) {
      throw source.error ?? this.failure(error);
    }
  }

  async open(key: string, range?: BlobRange): Promise<Readable> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const response = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key, Range: range === undefined ? undefined : `bytes=${range.start}-${range.end}` }),
      );
      const body = response.Body as Readable;
      if (range === undefined) return body;
      // A store answers the range asked for; one that sends more (the whole object, or a longer
      // range — some S3-compatible servers do) is cut to it here, so a caller never gets more bytes
      // than its Content-Length promised.
      const answered = /^bytes (\d+)-(\d+)\//.exec(response.ContentRange ?? '');
      const first = answered ? Number(answered[1]) : 0;
      const last = answered ? Number(answered[2]) : Number.POSITIVE_INFINITY;
      if (first === range.start && last === range.end) return body;
      if (first > range.start) {
        body.destroy();
        throw new BlobStoreUnavailableError(this.description, `asked for bytes ${range.start}-${range.end} of "${key}", the store answered ${response.ContentRange}`);
      }
      return sliceStream(body, range.start - first, range.end - range.start + 1);
    } catch (error) {
      throw this.failure(error, key);
    }
  }

  async stat(key: string): Promise<{ bytes: number } | undefined> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.config.bucket, Key }));
      return { bytes: Number(head.ContentLength ?? 0) };
    } catch (error) {
      const failure = this.failure(error, key);
      if (failure instanceof BlobMissingError) return undefined;
      throw failure;
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key }));
    } catch (error) {
      const failure = this.failure(error, key);
      if (!(failure instanceof BlobMissingError)) throw failure;
    }
  }

  async check(): Promise<void> {
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.config.bucket }), { abortSignal: AbortSignal.timeout(checkTimeoutMs) });
    } catch (error) {
      const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (failure.name === 'NotFound' || failure.$metadata?.httpStatusCode === 404) {
        throw new BlobStoreUnavailableError(this.description, `the bucket "${this.config.bucket}" does not exist`, { cause: error });
      }
      if (failure.name === 'AbortError' || failure.name === 'TimeoutError') {
        throw new BlobStoreUnavailableError(this.description, `no answer within ${checkTimeoutMs / 1000}s`, { cause: error });
      }
      throw this.failure(error);
    }
  }

  async close(): Promise<void> {
    if (this.connection === undefined) return;
    const connection = await this.connection.catch(() => undefined);
    connection?.client.destroy();
  }
}

/** `take` bytes of `source` after skipping `skip`; the source is destroyed once they have passed. */
function sliceStream(source: Readable, skip: number, take: number): Readable {
  let toSkip = skip;
  let toTake = take;
  const slice = new PassThrough();
  source.on('data', (chunk: Buffer) => {
    let part = chunk;
    if (toSkip > 0) {
      const skipped = Math.min(toSkip, part.length);
      toSkip -= skipped;
      part = part.subarray(skipped);
    }
    if (part.length === 0 || toTake === 0) return;
    const taken = part.subarray(0, toTake);
    toTake -= taken.length;
    if (!slice.write(taken)) source.pause();
    if (toTake === 0) {
      slice.end();
      source.destroy();
    }
  });
  slice.on('drain', () => source.resume());
  source.on('end', () => {
    if (toTake > 0) slice.destroy(new Error(`the store's answer ended ${toTake} bytes short of the range`));
  });
  source.on('error', (error) => slice.destroy(error));
  slice.on('close', () => source.destroy());
  return slice;
}
