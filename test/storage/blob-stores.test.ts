// One contract for every blob store (src/storage/blob-store.ts), run against the local directory
// and the S3 store on a loopback S3-compatible server (s3rver): bytes and streams in, sizes and
// SHA-256 exact, whole reads and ranges out, multipart for large objects, deletes that may be
// repeated, and the two failures callers tell apart — a missing blob and a store that cannot be
// reached — with a broken source stream leaving nothing behind its key.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { loadConfig } from '../../src/config/load.js';
import { BlobMissingError, type BlobStore, BlobStoreUnavailableError, readAll } from '../../src/storage/blob-store.js';
import { LocalBlobStore } from '../../src/storage/local-blob-store.js';
import { openBlobStore } from '../../src/storage/open-blob-store.js';
import { startS3Server } from '../helpers/s3-server.js';

interface Subject {
  readonly store: BlobStore;
  /** Makes the store unreachable from here on. */
  breakStore(): Promise<void>;
  /** Every object or file left in the store (a half-written one would show here). */
  leftovers(): Promise<string[]>;
}

const mb = 1024 * 1024;

async function localSubject(t: ExecutionContext): Promise<Subject> {
  const parent = mkdtempSync(path.join(tmpdir(), 'gw-blobs-'));
  const root = path.join(parent, 'files');
  let store: BlobStore = new LocalBlobStore(root);
  const subject = {
    get store() {
      return store;
    },
    async breakStore() {
      // A storage.dir that cannot be a directory (a file stands where it should be): every operation fails.
      const blocked = path.join(parent, 'blocked');
      writeFileSync(blocked, 'not a directory');
      store = new LocalBlobStore(path.join(blocked, 'files'));
    },
    async leftovers() {
      return readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
    },
  };
  t.teardown(() => store.close());
  return subject;
}

async function s3Subject(t: ExecutionContext): Promise<Subject> {
  const server = await startS3Server(t, { prefix: 'gw/' });
  const config = loadConfig({ raw: { storage: { blobs: { ...server.blobsConfig, part_size: '5MB' } } }, env: { ...server.env, GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-data-')) } });
  const store = openBlobStore(config.storage.blobs);
  t.teardown(() => store.close());
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // as the gateway's store does
  const { S3Client, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const lister = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey } });
  t.teardown(() => lister.destroy());
  return {
    store,
    breakStore: () => server.stop(),
    async leftovers() {
      const listed = await lister.send(new ListObjectsV2Command({ Bucket: server.bucket }));
      return (listed.Contents ?? []).map((object) => object.Key!);
    },
  };
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** `data` as a stream of 64 KB chunks (as an upload arrives). */
function streamOf(data: Buffer, chunk = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(data.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
}

async function readRange(store: BlobStore, key: string, start: number, end: number): Promise<Buffer> {
  return Buffer.from(await readAll(await store.open(key, { start, end })));
}

const subjects: [string, (t: ExecutionContext) => Promise<Subject>][] = [
  ['local', localSubject],
  ['s3', s3Subject],
];

for (const [name, make] of subjects) {
  test(`${name}: put bytes → size and SHA-256 exact; stat; open whole and ranges (first byte, last byte, middle)`, async (t) => {
    const { store } = await make(t);
    const data = randomBytes(100_000);
    const written = await store.put('2026-11-25/blob_bytes.png', data, 'image/png');
    t.deepEqual(written, { bytes: 100_000, sha256: sha256(data) });
    t.deepEqual(await store.stat('2026-11-25/blob_bytes.png'), { bytes: 100_000 });
    t.deepEqual(Buffer.from(await readAll(await store.open('2026-11-25/blob_bytes.png'))), data);
    t.deepEqual(await readRange(store, '2026-11-25/blob_bytes.png', 0, 0), data.subarray(0, 1));
    t.deepEqual(await readRange(store, '2026-11-25/blob_bytes.png', 99_999, 99_999), data.subarray(99_999));
    t.deepEqual(await readRange(store, '2026-11-25/blob_bytes.png', 40_000, 59_999), data.subarray(40_000, 60_000));
    await store.check();
  });

  test(`${name}: put a stream → size and SHA-256 measured on the way; the bytes read back exact`, async (t) => {
    const { store } = await make(t);
    const data = randomBytes(300_001);
    const written = await store.put('2026-11-25/blob_stream.mp3', streamOf(data), 'audio/mpeg');
    t.deepEqual(written, { bytes: 300_001, sha256: sha256(data) });
    t.deepEqual(await store.stat('2026-11-25/blob_stream.mp3'), { bytes: 300_001 });
    t.deepEqual(Buffer.from(await readAll(await store.open('2026-11-25/blob_stream.mp3'))), data);
    t.deepEqual(await readRange(store, '2026-11-25/blob_stream.mp3', 300_000, 300_000), data.subarray(300_000));
  });

  test(`${name}: a stream larger than part_size (5MB; 11MB) is stored whole (multipart on S3); ranges across part boundaries exact`, async (t) => {
    const { store } = await make(t);
    const data = randomBytes(11 * mb + 12_345);
    const written = await store.put('2026-11-25/blob_large.mp4', streamOf(data), 'video/mp4');
    t.deepEqual(written, { bytes: data.length, sha256: sha256(data) });
    t.deepEqual(await store.stat('2026-11-25/blob_large.mp4'), { bytes: data.length });
    const whole = Buffer.from(await readAll(await store.open('2026-11-25/blob_large.mp4')));
    t.is(sha256(whole), sha256(data));
    t.deepEqual(await readRange(store, '2026-11-25/blob_large.mp4', 5 * mb - 10, 5 * mb + 9), data.subarray(5 * mb - 10, 5 * mb + 10), 'across the first part boundary');
    t.deepEqual(await readRange(store, '2026-11-25/blob_large.mp4', data.length - 1, data.length - 1), data.subarray(data.length - 1));
    // Bytes (not a stream) larger than a part go up in parts too.
    const bytes = randomBytes(6 * mb);
    t.deepEqual(await store.put('2026-11-25/blob_large_bytes.mp4', bytes, 'video/mp4'), { bytes: 6 * mb, sha256: sha256(bytes) });
    t.is(sha256(await readAll(await store.open('2026-11-25/blob_large_bytes.mp4'))), sha256(bytes));
  });

  test(`${name}: delete, and delete again; a missing blob is BlobMissingError on open and undefined on stat`, async (t) => {
    const { store, leftovers } = await make(t);
    await store.put('2026-11-25/blob_gone.png', Buffer.from('bytes'), 'image/png');
    await store.delete('2026-11-25/blob_gone.png');
    await store.delete('2026-11-25/blob_gone.png');
    t.is(await store.stat('2026-11-25/blob_gone.png'), undefined);
    const missing = await t.throwsAsync(store.open('2026-11-25/blob_gone.png'), { instanceOf: BlobMissingError });
    t.is(missing.message, `the blob "2026-11-25/blob_gone.png" is missing from the ${store.description}`);
    await t.throwsAsync(store.open('2026-11-25/blob_never.png', { start: 0, end: 0 }), { instanceOf: BlobMissingError });
    t.deepEqual(await leftovers(), []);
  });

  test(`${name}: a source stream that fails midway rejects with its own error and leaves nothing behind the key`, async (t) => {
    const { store, leftovers } = await make(t);
    const data = randomBytes(6 * mb);
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent >= 5.5 * mb) return void this.destroy(new Error('the client went away'));
        this.push(data.subarray(sent, sent + 256 * 1024));
        sent += 256 * 1024;
      },
    });
    await t.throwsAsync(store.put('2026-11-25/blob_cut.mp4', failing, 'video/mp4'), { message: 'the client went away' });
    t.is(await store.stat('2026-11-25/blob_cut.mp4'), undefined);
    t.deepEqual(await leftovers(), [], 'no object, part or temporary file left');
  });

  test(`${name}: a store that cannot be reached is BlobStoreUnavailableError on every operation, naming the store`, async (t) => {
    const subject = await make(t);
    await subject.store.put('2026-11-25/blob_there.png', Buffer.from('bytes'), 'image/png');
    await subject.breakStore();
    const { store } = subject;
    for (const [what, operation] of [
      ['check', () => store.check()],
      ['put', () => store.put('2026-11-25/blob_new.png', Buffer.from('new'), 'image/png')],
      ['put a stream', () => store.put('2026-11-25/blob_new.png', streamOf(Buffer.from('new')), 'image/png')],
      ['open', () => store.open('2026-11-25/blob_there.png')],
      ['open a range', () => store.open('2026-11-25/blob_there.png', { start: 0, end: 1 })],
      ['stat', () => store.stat('2026-11-25/blob_there.png')],
      ['delete', () => store.delete('2026-11-25/blob_there.png')],
    ] as const) {
      const error = await t.throwsAsync(operation(), { instanceOf: BlobStoreUnavailableError }, what);
      t.true(error.message.startsWith(`the ${store.description} is unavailable: `), `${what}: ${error.message}`);
    }
  });
}

test('s3: the description names the bucket, the prefix and the endpoint', async (t) => {
  const server = await startS3Server(t, { prefix: 'gw/' });
  const config = loadConfig({ raw: { storage: { blobs: server.blobsConfig } }, env: { ...server.env, GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-data-')) } });
  const store = openBlobStore(config.storage.blobs);
  t.teardown(() => store.close());
  t.is(store.description, `S3 bucket "gateway-test" (prefix gw/) at ${server.endpoint}`);
});
