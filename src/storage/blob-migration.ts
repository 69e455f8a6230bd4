// Copying every live file's bytes from one blob store to another (`gateway files migrate-store`),
// so that an operator can move an installation from its local directory to S3 (or back) without
// losing a file. It switches nothing: the gateway keeps reading the store storage.blobs names;
// the operator switches after a run that reports every file copied and verified.
//
// - What is copied: the blob of every file row that is neither removed (deleted_at) nor expired
//   (an expired temporary file is never served again and its blob only waits for gc). Rows are
//   read up to the highest id at the start, so one pass has a fixed size: files made while it
//   runs are left to the next pass, which is why the operator runs it again right before switching.
// - Verified: each copy's size and SHA-256, measured on the way into the target, must equal the
//   row's. A copy that does not is removed from the target again (so a later run cannot take it
//   for done) and its file id reported; so is a file whose blob the source does not have.
// - Resumable: a blob the target already holds at the row's size is skipped (with verifyExisting,
//   read back and hashed first); nothing is recorded in the database, so an interrupted run is
//   continued by running it again.
// - The source is only ever read.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { Knex } from 'knex';
import type { BlobStoreConfig, Config } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import { BlobMissingError, type BlobStore } from './blob-store.js';

/** What a pass needs of a file row. */
export interface MigratingFile {
  readonly id: number;
  readonly storageKey: string;
  readonly mediaType: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface MigrationProgress {
  /** Files this pass covers, and their bytes. */
  readonly files: number;
  readonly totalBytes: number;
  /** Files dealt with so far (copied, skipped or reported), and their bytes. */
  readonly done: number;
  readonly doneBytes: number;
  readonly copied: number;
  /** Bytes copied so far (what the rate is of). */
  readonly copiedBytes: number;
  readonly skipped: number;
  readonly problems: number;
  readonly elapsedMs: number;
}

export interface MigrationSummary {
  readonly from: string;
  readonly to: string;
  /** Files this pass covered: live file rows up to the highest id at its start. */
  readonly files: number;
  /** Copied in this run (dry run: would be copied). */
  readonly copied: number;
  /** Already at the target with the row's size (and, with verifyExisting, its SHA-256). */
  readonly skipped: number;
  /** File ids whose blob the source does not have. */
  readonly missing: number[];
  /** File ids whose bytes at the source do not match the row's size or SHA-256 (nothing of them left at the target). */
  readonly mismatched: number[];
  /** Bytes copied in this run (dry run: that would be copied). */
  readonly bytes: number;
  readonly seconds: number;
  readonly dryRun: boolean;
  /** Stopped by the signal before every file was dealt with: run again to continue. */
  readonly interrupted: boolean;
  /** Every file of the pass is at the target, verified: what must be true before switching. */
  readonly complete: boolean;
}

export interface MigrationOptions {
  readonly db: Knex;
  readonly source: BlobStore;
  readonly target: BlobStore;
  /** The gateway's clock (services.now): decides which temporary files have expired. */
  readonly now: () => number;
  /** Copies at once (default 4). */
  readonly concurrency?: number;
  /** Read back and hash blobs already at the target before skipping them (a wrong one is copied again). */
  readonly verifyExisting?: boolean;
  /** Count what would be copied (stat only): nothing is written. */
  readonly dryRun?: boolean;
  /** Aborting stops starting new copies; those under way finish; the summary says `interrupted`. */
  readonly signal?: AbortSignal;
  /** Called after every file, and once at the start. */
  readonly onProgress?: (progress: MigrationProgress) => void;
  /** Milliseconds for `seconds` (default: performance.now). */
  readonly elapsed?: () => number;
}

const pageSize = 500;

/** The files whose bytes the gateway may still serve: not removed, and permanent or not yet expired. */
function liveFiles(db: Knex, now: number): Knex.QueryBuilder {
  return db('files')
    .whereNull('deleted_at')
    .andWhere((q) => q.where('permanent', true).orWhereNull('expires_at').orWhere('expires_at', '>', now));
}

async function* filesUpTo(db: Knex, now: number, lastId: number): AsyncGenerator<MigratingFile> {
  let after = 0;
  for (;;) {
    const rows: Record<string, unknown>[] = await liveFiles(db, now)
      .andWhere('id', '>', after)
      .andWhere('id', '<=', lastId)
      .orderBy('id')
      .limit(pageSize)
      .select('id', 'storage_key', 'media_type', 'bytes', 'sha256');
    for (const row of rows) {
      yield { id: Number(row.id), storageKey: String(row.storage_key), mediaType: String(row.media_type), bytes: Number(row.bytes), sha256: String(row.sha256) };
    }
    if (rows.length < pageSize) return;
    after = Number(rows.at(-1)!.id);
  }
}

/** A stream's size and SHA-256, reading it to its end. */
async function measure(stream: NodeJS.ReadableStream): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        done();
      },
    }),
  );
  return { bytes, sha256: hash.digest('hex') };
}

type Outcome = 'copied' | 'skipped' | 'missing' | 'mismatched';

async function migrateOne(file: MigratingFile, options: MigrationOptions): Promise<Outcome> {
  const { source, target } = options;
  const present = await target.stat(file.storageKey);
  if (present?.bytes === file.bytes) {
    if (!options.verifyExisting) return 'skipped';
    const existing = await measure(await target.open(file.storageKey));
    if (existing.bytes === file.bytes && existing.sha256 === file.sha256) return 'skipped';
  }
  if (options.dryRun) return (await source.stat(file.storageKey)) === undefined ? 'missing' : 'copied';
  let body;
  try {
    body = await source.open(file.storageKey);
  } catch (error) {
    if (error instanceof BlobMissingError) return 'missing';
    throw error;
  }
  const written = await target.put(file.storageKey, body, file.mediaType);
  if (written.bytes === file.bytes && written.sha256 === file.sha256) return 'copied';
  // Not the bytes the row describes (changed on disk): removed from the target, so that no later
  // run skips it as done and no switched gateway serves it as the file.
  await target.delete(file.storageKey);
  return 'mismatched';
}

/** Copies every live file's blob from `source` to `target` (see the top of this file). */
export async function migrateBlobs(options: MigrationOptions): Promise<MigrationSummary> {
  const elapsed = options.elapsed ?? (() => performance.now());
  const started = elapsed();
  const now = options.now();
  const concurrency = Math.max(1, options.concurrency ?? 4);
  // The pass's extent, fixed at its start: the highest id, and what the live files up to it weigh.
  const last = await options.db('files').max({ id: 'id' }).first();
  const lastId = Number(last?.id ?? 0);
  const totals: { files?: unknown; bytes?: unknown } | undefined = await liveFiles(options.db, now).andWhere('id', '<=', lastId).count({ files: '*' }).sum({ bytes: 'bytes' }).first();
  const files = Number(totals?.files ?? 0);
  const totalBytes = Number(totals?.bytes ?? 0);

  let done = 0;
  let doneBytes = 0;
  let copied = 0;
  let skipped = 0;
  let bytes = 0;
  const missing: number[] = [];
  const mismatched: number[] = [];
  const report = () =>
    options.onProgress?.({ files, totalBytes, done, doneBytes, copied, copiedBytes: bytes, skipped, problems: missing.length + mismatched.length, elapsedMs: elapsed() - started });
  report();

  const queue = filesUpTo(options.db, now, lastId);
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined || options.signal?.aborted === true;
  // One generator, several workers: each takes the next file when it is free (an async generator
  // queues calls of next() made while one is pending, so no file is taken twice). A failure that is
  // not about one file (the target or the source unreachable) stops the others taking more.
  const worker = async () => {
    while (!stopped()) {
      const next = await queue.next();
      if (next.done) return;
      const file = next.value;
      let outcome: Outcome;
      try {
        outcome = await migrateOne(file, options);
      } catch (error) {
        failure ??= { error };
        return;
      }
      if (outcome === 'copied') {
        copied++;
        bytes += file.bytes;
      } else if (outcome === 'skipped') skipped++;
      else if (outcome === 'missing') missing.push(file.id);
      else mismatched.push(file.id);
      done++;
      doneBytes += file.bytes;
      report();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure) throw failure.error;

  missing.sort((a, b) => a - b);
  mismatched.sort((a, b) => a - b);
  const interrupted = done < files;
  return {
    from: options.source.description,
    to: options.target.description,
    files,
    copied,
    skipped,
    missing,
    mismatched,
    bytes,
    seconds: Math.round(elapsed() - started) / 1000,
    dryRun: options.dryRun === true,
    interrupted,
    complete: !options.dryRun && !interrupted && missing.length === 0 && mismatched.length === 0,
  };
}

/** 1536 → "1.5 KB" (binary units, as storage sizes are configured). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** One progress line: "files 12/40, 3.2 MB/10.1 MB, 1.1 MB/s, 1 problem" (the rate is of bytes copied, not skipped). */
export function formatProgress(progress: MigrationProgress): string {
  const rate = progress.elapsedMs > 0 ? (progress.copiedBytes / progress.elapsedMs) * 1000 : 0;
  const problems = progress.problems === 0 ? '' : `, ${progress.problems} problem${progress.problems === 1 ? '' : 's'}`;
  return `files ${progress.done}/${progress.files}, ${formatBytes(progress.doneBytes)}/${formatBytes(progress.totalBytes)}, ${formatBytes(Math.round(rate))}/s${problems}`;
}

/**
 * The store a migration copies to: `to` absent → storage.blobs_next as configured; `to: 's3'` →
 * storage.blobs_next, which must be an S3 store; `to: 'local'` → the directory `dir`, or else
 * storage.dir (where a gateway on local storage keeps its files: the way back from S3).
 * Refused when it is the store the gateway uses now: a copy onto itself proves nothing.
 */
export function migrationTarget(storage: Config['storage'], options: { to?: 's3' | 'local'; dir?: string }): BlobStoreConfig {
  const how = 'add storage.blobs_next to the configuration (the same keys as storage.blobs, e.g. kind: s3, bucket, endpoint), or give --to local [--dir PATH]; docs/operations.md, "Moving files to S3"';
  if (options.dir !== undefined && options.to !== 'local') throw new GatewayError('invalid_argument', '--dir names a local directory to copy to: give it with --to local');
  let target: BlobStoreConfig;
  if (options.to === 'local') {
    target = { kind: 'local', dir: path.resolve(options.dir ?? storage.dir), shared: false };
  } else if (storage.blobsNext === undefined) {
    throw new GatewayError('invalid_argument', `${options.to === 's3' ? '--to s3 copies to the S3 store described in storage.blobs_next' : 'nothing to copy to: the target is storage.blobs_next'}, which this configuration does not have: ${how}`);
  } else if (options.to === 's3' && storage.blobsNext.kind !== 's3') {
    throw new GatewayError('invalid_argument', `--to s3, but storage.blobs_next is kind: ${storage.blobsNext.kind}: describe the S3 store there (kind: s3, bucket, endpoint, …)`);
  } else {
    target = storage.blobsNext;
  }
  if (sameStore(storage.blobs, target)) {
    const which = target.kind === 'local' ? `the local directory ${target.dir}` : `the S3 bucket "${target.bucket}" (prefix "${target.prefix}")`;
    throw new GatewayError(
      'invalid_argument',
      `the target is ${which}, which storage.blobs already uses: nothing to copy${target.kind === 'local' ? '; give another directory with --to local --dir PATH' : ''}`,
    );
  }
  return target;
}

function sameStore(a: BlobStoreConfig, b: BlobStoreConfig): boolean {
  if (a.kind === 'local' && b.kind === 'local') return path.resolve(a.dir) === path.resolve(b.dir);
  if (a.kind === 's3' && b.kind === 's3') return (a.endpoint ?? a.region) === (b.endpoint ?? b.region) && a.bucket === b.bucket && a.prefix === b.prefix;
  return false;
}
