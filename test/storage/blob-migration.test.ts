// Copying every live file's blob from the local store to an S3-compatible one (s3rver on
// loopback), as `gateway files migrate-store` does: verified by size and SHA-256, missing and
// corrupted source blobs reported by file id, resumable after an interruption with each blob
// copied exactly once, and nothing deleted at the source.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import test from 'ava';
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { loadConfig } from '../../src/config/load.js';
import { readAll, type BlobStore } from '../../src/storage/blob-store.js';
import { formatProgress, migrateBlobs, migrationTarget, type MigrationProgress, type MigrationSummary } from '../../src/storage/blob-migration.js';
import { LocalBlobStore } from '../../src/storage/local-blob-store.js';
import { openBlobStore } from '../../src/storage/open-blob-store.js';
import { testOnBackends } from '../helpers/backends.js';
import { makeFile, type MadeFile } from '../helpers/blob-files.js';
import { testClock } from '../helpers/clock.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

const hour = 3_600_000;

/** A summary without what depends on the machine (seconds) or the stores' names, for exact comparison. */
function counts(summary: MigrationSummary) {
  const { seconds, from, to, ...rest } = summary;
  return rest;
}

const none = { missing: [], mismatched: [] };

function s3Store(s3: TestS3Server) {
  const config = loadConfig({ raw: { storage: { blobs: s3.blobsConfig } }, env: s3.env });
  return openBlobStore(config.storage.blobs);
}

/** Counts puts, and aborts `controller` after `abortAfter` of them (an interruption mid-run). */
function countingStore(inner: BlobStore, options: { controller?: AbortController; abortAfter?: number } = {}): BlobStore & { puts: string[] } {
  const puts: string[] = [];
  return {
    puts,
    description: inner.description,
    async put(key: string, body: Uint8Array | Readable, mediaType: string) {
      const written = await inner.put(key, body, mediaType);
      puts.push(key);
      if (options.abortAfter !== undefined && puts.length === options.abortAfter) options.controller?.abort();
      return written;
    },
    open: (key, range) => inner.open(key, range),
    stat: (key) => inner.stat(key),
    delete: (key) => inner.delete(key),
    check: () => inner.check(),
    close: () => inner.close(),
  };
}

async function setup(t: Parameters<Parameters<typeof testOnBackends>[1]>[0], db: Knex) {
  const s3 = await startS3Server(t);
  const target = s3Store(s3);
  t.teardown(() => target.close());
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-migrate-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const source = new LocalBlobStore(dir);
  const account = await new Accounts(db).create(`migrate-${Math.random().toString(36).slice(2)}`);
  return { s3, target, source, dir, accountId: account.id };
}

testOnBackends('every live blob is copied and verified; missing and corrupted source blobs are reported by id; a second run skips all', async (t, database) => {
  const { db } = database;
  const clock = testClock();
  const { target, source, dir, accountId } = await setup(t, db);
  const now = clock.now();
  const live = [
    await makeFile(db, source, accountId, now, 1_000),
    await makeFile(db, source, accountId, now, 70_000),
    await makeFile(db, source, accountId, now, 1, { permanent: true, expiresAt: null }),
  ];
  const missing = await makeFile(db, source, accountId, now, 300);
  await source.delete(missing.key);
  const corrupted = await makeFile(db, source, accountId, now, 400);
  const onDisk = path.join(dir, corrupted.key);
  const changed = readFileSync(onDisk);
  changed[17] = changed[17]! ^ 0xff; // same size, other bytes
  writeFileSync(onDisk, changed);
  const expired = await makeFile(db, source, accountId, now - 2 * hour, 500, { expiresAt: now - hour });
  const removed = await makeFile(db, source, accountId, now, 600, { deletedAt: now });

  const counted = countingStore(target);
  const progress: MigrationProgress[] = [];
  const first = await migrateBlobs({ db, source, target: counted, now: clock.now, concurrency: 2, onProgress: (p) => progress.push(p) });
  t.deepEqual(counts(first), { files: 5, copied: 3, skipped: 0, missing: [missing.id], mismatched: [corrupted.id], bytes: 71_001, dryRun: false, interrupted: false, complete: false });
  t.is(first.from, source.description);
  t.is(first.to, target.description);
  t.is(progress.length, 6, 'once at the start, then once per file');
  t.deepEqual({ ...progress.at(-1)!, elapsedMs: 0 }, { files: 5, totalBytes: 71_701, done: 5, doneBytes: 71_701, copied: 3, copiedBytes: 71_001, skipped: 0, problems: 2, elapsedMs: 0 });
  t.deepEqual({ ...progress[0]!, elapsedMs: 0 }, { files: 5, totalBytes: 71_701, done: 0, doneBytes: 0, copied: 0, copiedBytes: 0, skipped: 0, problems: 0, elapsedMs: 0 });
  for (const file of live) t.deepEqual(Buffer.from(await readAll(await target.open(file.key))), file.data, `file ${file.id} at the target is its bytes`);
  t.is(await target.stat(corrupted.key), undefined, 'the corrupted copy is not left at the target');
  t.is(await target.stat(missing.key), undefined);
  t.is(await target.stat(expired.key), undefined, 'an expired file is not copied');
  t.is(await target.stat(removed.key), undefined, 'a removed file is not copied');
  t.deepEqual((await source.stat(expired.key))!, { bytes: 500 }, 'nothing is deleted at the source');
  t.deepEqual((await source.stat(corrupted.key))!, { bytes: 400 });
  t.deepEqual(counted.puts.sort(), [...live.map((f) => f.key), corrupted.key].sort(), 'the corrupted one was written, then removed again');

  const second = countingStore(target);
  const again = await migrateBlobs({ db, source, target: second, now: clock.now, verifyExisting: true });
  t.deepEqual(counts(again), { files: 5, copied: 0, skipped: 3, missing: [missing.id], mismatched: [corrupted.id], bytes: 0, dryRun: false, interrupted: false, complete: false }, 'the corrupted one is still reported: the source is still wrong');
  t.deepEqual(second.puts, [corrupted.key], 'only the corrupted one is tried again');

  // Once the bad files are dealt with (here: removed), the pass is complete; a dry run says so first.
  await db('files').whereIn('id', [missing.id, corrupted.id]).update({ deleted_at: clock.now() });
  const dry = await migrateBlobs({ db, source, target, now: clock.now, dryRun: true });
  t.deepEqual(counts(dry), { files: 3, copied: 0, skipped: 3, ...none, bytes: 0, dryRun: true, interrupted: false, complete: false });
  t.deepEqual(counts(await migrateBlobs({ db, source, target, now: clock.now })), { files: 3, copied: 0, skipped: 3, ...none, bytes: 0, dryRun: false, interrupted: false, complete: true });
});

testOnBackends('an interrupted run, run again, copies the rest once each; a dry run counts without writing; files made after the start wait for the next pass', async (t, database) => {
  const { db } = database;
  const clock = testClock();
  const { target, source, accountId } = await setup(t, db);
  const files: MadeFile[] = [];
  for (let i = 1; i <= 7; i++) files.push(await makeFile(db, source, accountId, clock.now(), 100 * i));

  const dry = countingStore(target);
  t.deepEqual(counts(await migrateBlobs({ db, source, target: dry, now: clock.now, dryRun: true })), { files: 7, copied: 7, skipped: 0, ...none, bytes: 2_800, dryRun: true, interrupted: false, complete: false });
  t.deepEqual(dry.puts, [], 'a dry run writes nothing');
  t.is(await target.stat(files[0]!.key), undefined);

  const controller = new AbortController();
  const interrupted = countingStore(target, { controller, abortAfter: 3 });
  const first = await migrateBlobs({ db, source, target: interrupted, now: clock.now, concurrency: 1, signal: controller.signal });
  t.deepEqual(counts(first), { files: 7, copied: 3, skipped: 0, ...none, bytes: 600, dryRun: false, interrupted: true, complete: false });
  t.deepEqual(interrupted.puts, files.slice(0, 3).map((f) => f.key), 'stopped after the third, taking no more');

  // A file made while a pass could run: the next pass covers it.
  const later = await makeFile(db, source, accountId, clock.now(), 50);
  const resumed = countingStore(target);
  const second = await migrateBlobs({ db, source, target: resumed, now: clock.now, concurrency: 3 });
  t.deepEqual(counts(second), { files: 8, copied: 5, skipped: 3, ...none, bytes: 2_250, dryRun: false, interrupted: false, complete: true });
  t.deepEqual(resumed.puts.sort(), [...files.slice(3).map((f) => f.key), later.key].sort(), 'the rest, each once');
  for (const file of [...files, later]) t.deepEqual(Buffer.from(await readAll(await target.open(file.key))), file.data);

  // A wrong object at the target with the right size is only caught by --verify-existing.
  await target.put(files[0]!.key, Buffer.alloc(100, 9), 'image/png');
  const trusting = countingStore(target);
  t.deepEqual(counts(await migrateBlobs({ db, source, target: trusting, now: clock.now })), { files: 8, copied: 0, skipped: 8, ...none, bytes: 0, dryRun: false, interrupted: false, complete: true });
  t.deepEqual(trusting.puts, []);
  const verifying = countingStore(target);
  t.deepEqual(counts(await migrateBlobs({ db, source, target: verifying, now: clock.now, verifyExisting: true })), { files: 8, copied: 1, skipped: 7, ...none, bytes: 100, dryRun: false, interrupted: false, complete: true });
  t.deepEqual(verifying.puts, [files[0]!.key]);
  t.deepEqual(Buffer.from(await readAll(await target.open(files[0]!.key))), files[0]!.data);
});

testOnBackends('a target that cannot be reached stops the run with its error; nothing is skipped as done', async (t, database) => {
  const { db } = database;
  const clock = testClock();
  const { s3, target, source, accountId } = await setup(t, db);
  await makeFile(db, source, accountId, clock.now(), 10);
  await s3.stop();
  const error = await t.throwsAsync(migrateBlobs({ db, source, target, now: clock.now }));
  t.is(error!.name, 'BlobStoreUnavailableError');
});

test('the target: storage.blobs_next, --to s3 only onto an S3 block, --to local onto a directory, never the store in use', (t) => {
  const s3Blobs = { kind: 's3', bucket: 'gw-files', endpoint: 'http://127.0.0.1:9', force_path_style: true };
  const local = loadConfig({ raw: { storage: { dir: '/srv/files' } }, env: {} }).storage;
  const withNext = loadConfig({ raw: { storage: { dir: '/srv/files', blobs_next: s3Blobs } }, env: {} }).storage;
  const onS3 = loadConfig({ raw: { storage: { dir: '/srv/files', blobs: s3Blobs } }, env: {} }).storage;
  t.like(migrationTarget(withNext, {}), { kind: 's3', bucket: 'gw-files', endpoint: 'http://127.0.0.1:9', prefix: '', forcePathStyle: true });
  t.is(migrationTarget(withNext, { to: 's3' }), withNext.blobsNext!);
  t.deepEqual(migrationTarget(onS3, { to: 'local' }), { kind: 'local', dir: '/srv/files', shared: false }, 'back from S3: into storage.dir');
  t.deepEqual(migrationTarget(local, { to: 'local', dir: '/mnt/new' }), { kind: 'local', dir: '/mnt/new', shared: false });
  const refusals: [typeof local, Parameters<typeof migrationTarget>[1], RegExp][] = [
    [local, { to: 's3' }, /^--to s3 copies to the S3 store described in storage\.blobs_next, which this configuration does not have: add storage\.blobs_next/],
    [local, {}, /^nothing to copy to: the target is storage\.blobs_next, which this configuration does not have/],
    [local, { to: 'local' }, /^the target is the local directory \/srv\/files, which storage\.blobs already uses: nothing to copy; give another directory with --to local --dir PATH$/],
    [local, { dir: '/mnt/new' }, /^--dir names a local directory to copy to: give it with --to local$/],
    [onS3, { to: 's3' }, /^--to s3 copies to the S3 store described in storage\.blobs_next/],
    [loadConfig({ raw: { storage: { blobs: s3Blobs, blobs_next: s3Blobs } }, env: {} }).storage, {}, /^the target is the S3 bucket "gw-files" \(prefix ""\), which storage\.blobs already uses/],
    [loadConfig({ raw: { storage: { blobs_next: { kind: 'local' } } }, env: {} }).storage, { to: 's3' }, /^--to s3, but storage\.blobs_next is kind: local/],
  ];
  for (const [storage, options, message] of refusals) {
    const error = t.throws(() => migrationTarget(storage, options), { message });
    t.is((error as { code?: string }).code, 'invalid_argument');
  }
});

test('storage.blobs_next is validated like storage.blobs, and its problems name it', (t) => {
  t.throws(() => loadConfig({ raw: { storage: { blobs_next: { kind: 's3', bucket: 'gw-files', access_key_id_env: 'S3_KEY' } } }, env: {} }), {
    message: /storage\.blobs_next: set both access_key_id_env and secret_access_key_env, or neither/,
  });
  t.throws(() => loadConfig({ raw: { storage: { blobs_next: { kind: 's3', bucket: 'Not_A_Bucket' } } }, env: {} }), { message: /storage\.blobs_next\.bucket/ });
  t.is(loadConfig({ raw: {}, env: {} }).storage.blobsNext, undefined);
});

test('a progress line: files, bytes and the rate of bytes copied', (t) => {
  const progress = { files: 40, totalBytes: 10 * 1024 * 1024, done: 12, doneBytes: 3 * 1024 * 1024, copied: 10, copiedBytes: 2 * 1024 * 1024, skipped: 2, problems: 1, elapsedMs: 2_000 };
  t.is(formatProgress(progress), 'files 12/40, 3.0 MB/10.0 MB, 1.0 MB/s, 1 problem');
  t.is(formatProgress({ ...progress, problems: 0, elapsedMs: 0, doneBytes: 512 }), 'files 12/40, 512 bytes/10.0 MB, 0 bytes/s');
});
