// The blob store a config names (storage.blobs): one per process, opened once.
import type { BlobStoreConfig } from '../config/load.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

export function openBlobStore(config: BlobStoreConfig): BlobStore {
  return config.kind === 'local' ? new LocalBlobStore(config.dir) : new S3BlobStore(config);
}
