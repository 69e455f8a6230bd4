// Instances on several machines must keep file bytes where every one of them can read them.
// With `storage.blobs.kind: local` (not `shared`), a file written on machine A is not on B: read
// through B it would be a 500 (ENOENT), and a job whose input was uploaded to A would be stuck
// on a runner of B. So a `serve` or `worker` on PostgreSQL records, with its heartbeat
// (`instances`, src/billing/hold-owners.ts), where it keeps files, and refuses to start when:
//   - it keeps them on its own disk (local, not shared) and a live instance runs on another
//     machine, whatever that one's store; or
//   - a live instance on another machine keeps them on its own disk.
// Whichever starts second refuses; the first keeps running (nothing stops a running process).
// Live = the hold owners' rule: a heartbeat newer than holds.owner_gone_after. Instances whose
// stores differ otherwise (one on a shared volume, one on S3; two buckets) are only warned
// about: they may be mid-migration, and they do not lose files silently on one machine's disk.
//
// "Another machine" is another hostname (GATEWAY_INSTANCE_HOSTNAME, else the OS's). Containers
// have a hostname each even on one machine: containers sharing a volume for storage.dir are
// the `shared: true` case. SQLite is one machine by nature (one file, no network access): no
// check there.
import type { BlobStoreConfig } from '../config/load.js';
import type { Logger } from '../observability/logger.js';
import { InfrastructureError } from '../util/infrastructure-error.js';

/** Where an instance keeps file bytes, as recorded in instances.blob_store. */
export function blobStoreIdentity(blobs: BlobStoreConfig, hostname: string): string {
  if (blobs.kind === 'local') return blobs.shared ? `local-shared:${blobs.dir}` : `local:${hostname}:${blobs.dir}`;
  return `s3:${blobs.endpoint ?? `aws:${blobs.region}`}/${blobs.bucket}/${blobs.prefix}`;
}

/** A live instance's row as the admission sees it. */
export interface LiveInstance {
  readonly id: string;
  readonly hostname: string;
  readonly pid: number;
  readonly blob_store: string | null;
}

const onOwnDisk = (store: string | null): boolean => store !== null && store.startsWith('local:');
const kindOf = (store: string): string => store.slice(0, store.indexOf(':'));
const directoryOf = (store: string): string => store.slice(store.indexOf(':', 'local:'.length) + 1);
const fix = 'set storage.blobs.kind: s3 (one object store for all), or storage.blobs.shared: true where storage.dir is one volume mounted on every machine';

/**
 * Throws the one-line refusal when this instance (`self`) must not run beside the live
 * `others`; logs a warning when they run on different stores without losing files.
 */
export function admitInstance(self: { readonly hostname: string; readonly blobStore: string }, others: readonly LiveInstance[], logger: Logger): void {
  const elsewhere = others.filter((other) => other.hostname !== self.hostname);
  if (onOwnDisk(self.blobStore) && elsewhere.length > 0) {
    const hosts = [...new Set(elsewhere.map((other) => other.hostname))].sort().join(', ');
    throw new InfrastructureError(
      `refusing to start: this instance (host ${self.hostname}) keeps files in its own directory ${directoryOf(self.blobStore)} (storage.blobs.kind: local), but instances on other machines use this database (${hosts}), which could not read them; ${fix}`,
    );
  }
  const stranded = elsewhere.find((other) => onOwnDisk(other.blob_store));
  if (stranded) {
    throw new InfrastructureError(
      `refusing to start: a running instance on host ${stranded.hostname} (pid ${stranded.pid}) keeps files in its own directory ${directoryOf(stranded.blob_store!)} (storage.blobs.kind: local), which this machine (host ${self.hostname}) could not read; ${fix} on every instance`,
    );
  }
  for (const other of others) {
    if (other.blob_store === null) {
      logger.warn({ instance: other.id, hostname: other.hostname, pid: other.pid }, 'a running instance of an older gateway does not record where it keeps files: make sure every instance uses the same storage.blobs');
    } else if (other.blob_store !== self.blobStore && !(kindOf(other.blob_store) === 'local-shared' && kindOf(self.blobStore) === 'local-shared')) {
      logger.warn(
        { instance: other.id, hostname: other.hostname, pid: other.pid, its_blob_store: other.blob_store, blob_store: self.blobStore },
        'running instances keep files in different stores: a file stored through one may be missing through another (run every instance with the same storage.blobs)',
      );
    }
  }
}
