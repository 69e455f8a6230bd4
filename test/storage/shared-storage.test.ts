// Local storage across machines is refused at start (src/storage/shared-storage.ts), through
// the hold owners' registration as `serve` and `worker` do it (src/services.ts), with an
// injected clock: on PostgreSQL an instance keeping files on its own disk does not start beside
// a live instance on another machine, nor does any instance beside such a one; whichever starts
// second is refused and the first keeps its row; a stale instance (no heartbeat for
// owner_gone_after) no longer counts; a shared directory or S3 starts, warning when stores differ;
// two starts at once are decided one after the other. SQLite (one machine) checks nothing.
import { pino } from 'pino';
import { HoldOwner } from '../../src/billing/hold-owners.js';
import { Ledger } from '../../src/billing/ledger.js';
import type { BlobStoreConfig } from '../../src/config/load.js';
import { admitInstance, blobStoreIdentity } from '../../src/storage/shared-storage.js';
import { testOnBackends } from '../helpers/backends.js';

const options = { heartbeatMs: 1_000, goneAfterMs: 5_000 };
const local = (dir: string): BlobStoreConfig => ({ kind: 'local', dir, shared: false });
const shared = (dir: string): BlobStoreConfig => ({ kind: 'local', dir, shared: true });
const s3: BlobStoreConfig = {
  kind: 's3',
  endpoint: 'http://127.0.0.1:9000',
  region: 'us-east-1',
  bucket: 'files',
  prefix: 'gw/',
  forcePathStyle: true,
  credentials: undefined,
  credentialsProblem: undefined,
  partSizeBytes: 8 * 1024 * 1024,
};
const fix = 'set storage.blobs.kind: s3 (one object store for all), or storage.blobs.shared: true where storage.dir is one volume mounted on every machine';

testOnBackends('local storage across machines: the second instance to start is refused, a stale one does not count, shared and S3 start', async (t, { db, backend }) => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const ledger = new Ledger(db, clock);
  const warnings: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const instance = (hostname: string, blobs: BlobStoreConfig) => {
    const blobStore = blobStoreIdentity(blobs, hostname);
    return new HoldOwner(db, ledger, logger, { ...options, now: clock, hostname, blobStore, admit: (others) => admitInstance({ hostname, blobStore }, others, logger) });
  };
  const rows = async () => (await db('instances').select('hostname', 'blob_store').orderBy('started_at').orderBy('hostname')).map((row: { hostname: string; blob_store: string }) => `${row.hostname} ${row.blob_store}`);

  t.is(blobStoreIdentity(local('/srv/files'), 'a'), 'local:a:/srv/files');
  t.is(blobStoreIdentity(shared('/mnt/files'), 'a'), 'local-shared:/mnt/files');
  t.is(blobStoreIdentity(s3, 'a'), 's3:http://127.0.0.1:9000/files/gw/');
  t.is(blobStoreIdentity({ ...s3, endpoint: undefined, prefix: '' }, 'a'), 's3:aws:us-east-1/files/');

  const first = instance('host-a', local('/srv/a/files'));
  await first.register();
  // The same machine, the same directory: a second process of one host is fine.
  await instance('host-a', local('/srv/a/files')).register();
  const onB = instance('host-b', s3);
  if (backend === 'sqlite') {
    // One machine by nature: nothing is checked.
    await onB.register();
    await instance('host-c', local('/srv/c/files')).register();
    t.deepEqual(await rows(), ['host-a local:host-a:/srv/a/files', 'host-a local:host-a:/srv/a/files', 'host-b s3:http://127.0.0.1:9000/files/gw/', 'host-c local:host-c:/srv/c/files']);
    t.deepEqual(warnings, []);
    return;
  }
  // Another machine beside a live local one: refused, whatever its own store; nothing written.
  const strandedLine = `refusing to start: a running instance on host host-a (pid ${process.pid}) keeps files in its own directory /srv/a/files (storage.blobs.kind: local), which this machine (host host-b) could not read; ${fix} on every instance`;
  await t.throwsAsync(() => onB.register(), { name: 'InfrastructureError', message: strandedLine });
  await t.throwsAsync(() => instance('host-b', shared('/mnt/files')).register(), { message: strandedLine });
  t.deepEqual(await rows(), ['host-a local:host-a:/srv/a/files', 'host-a local:host-a:/srv/a/files']);
  t.deepEqual(warnings, []);

  // Both host-a instances stop beating: owner_gone_after later they no longer count.
  now += options.goneAfterMs + 1;
  const second = instance('host-b', s3);
  await second.register();
  // The stale ones are not warned about either: only live instances are compared.
  t.deepEqual(warnings, []);

  // Now host-a comes back with its local directory: it starts second, so it is the one refused.
  const ownDiskLine = `refusing to start: this instance (host host-a) keeps files in its own directory /srv/a/files (storage.blobs.kind: local), but instances on other machines use this database (host-b), which could not read them; ${fix}`;
  await t.throwsAsync(() => instance('host-a', local('/srv/a/files')).register(), { name: 'InfrastructureError', message: ownDiskLine });
  // With storage.dir declared a shared volume it starts, warning that the stores differ.
  await instance('host-c', shared('/mnt/files')).register();
  t.is(warnings.length, 1);
  t.like(warnings[0], { level: 40, hostname: 'host-b', its_blob_store: 's3:http://127.0.0.1:9000/files/gw/', blob_store: 'local-shared:/mnt/files' });
  // S3 beside S3 (the same bucket and prefix) and shared beside shared: no warning.
  await instance('host-d', s3).register();
  t.is(warnings.length, 2, 'host-d (S3) is warned about host-c (shared) only');
  t.like(warnings[1], { hostname: 'host-c', its_blob_store: 'local-shared:/mnt/files', blob_store: 's3:http://127.0.0.1:9000/files/gw/' });
  // Several other hosts are all named.
  await t.throwsAsync(() => instance('host-e', local('/srv/e')).register(), {
    message: `refusing to start: this instance (host host-e) keeps files in its own directory /srv/e (storage.blobs.kind: local), but instances on other machines use this database (host-b, host-c, host-d), which could not read them; ${fix}`,
  });
  // The refused starts left no row; the first instance of host-b kept beating all along.
  await second.beat();
  t.deepEqual((await rows()).slice(2), ['host-b s3:http://127.0.0.1:9000/files/gw/', 'host-c local-shared:/mnt/files', 'host-d s3:http://127.0.0.1:9000/files/gw/']);
});

testOnBackends('local instances of six machines starting at once: one starts, the others are refused', async (t, { db, backend }) => {
  const now = 1_800_000_000_000;
  const ledger = new Ledger(db, () => now);
  const logger = pino({ level: 'silent' });
  const instance = (hostname: string) => {
    const blobStore = blobStoreIdentity(local(`/srv/${hostname}`), hostname);
    return new HoldOwner(db, ledger, logger, { ...options, now: () => now, hostname, blobStore, admit: (others) => admitInstance({ hostname, blobStore }, others, logger) });
  };
  // Each start's check and insert overlap the others': 8 connections are open before they run.
  await Promise.all(Array.from({ length: 8 }, () => db.raw(backend === 'postgres' ? 'SELECT pg_sleep(0.05)' : 'SELECT 1')));
  const outcomes = await Promise.allSettled(['host-1', 'host-2', 'host-3', 'host-4', 'host-5', 'host-6'].map((hostname) => instance(hostname).register()));
  const started = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
  t.is(started, backend === 'sqlite' ? 6 : 1);
  t.is(Number((await db('instances').count({ n: '*' }).first())?.n), started);
}, { poolMax: 8 });
