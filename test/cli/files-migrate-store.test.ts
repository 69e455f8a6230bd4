// `gateway files migrate-store` through the binary: a SQLite install's files copied from its
// local directory to an S3-compatible store (s3rver on loopback) named in storage.blobs_next,
// the exact summary, a second run that skips all, refusals in the catalog's shape, and then the
// switch: `serve` on storage.blobs = that store answers a file's content from it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { parse, stringify } from 'yaml';
import { Accounts } from '../../src/accounts/accounts.js';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config/load.js';
import { readAll } from '../../src/storage/blob-store.js';
import { LocalBlobStore } from '../../src/storage/local-blob-store.js';
import { openBlobStore } from '../../src/storage/open-blob-store.js';
import { createTestDatabase } from '../helpers/backends.js';
import { makeFile } from '../helpers/blob-files.js';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { exampleConfigPath } from '../helpers/gateway.js';
import { startS3Server } from '../helpers/s3-server.js';

function writeConfig(dir: string, name: string, storage: Record<string, unknown>): string {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const file = path.join(dir, name);
  writeFileSync(file, stringify({ ...raw, storage: { ...raw.storage, ...storage } }));
  return file;
}

test('migrate-store copies a SQLite install\'s files to S3 with an exact summary, skips them on a second run, and serve reads them from S3 after the switch', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const s3 = await startS3Server(t);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-migrate-cli-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const local = new LocalBlobStore(path.join(dataDir, 'files'));
  const account = await new Accounts(database.db).create('migrating');
  const { key } = await new ApiKeys(database.db, 'gw').create({ accountId: account.id });
  const now = Date.now();
  const files = [await makeFile(database.db, local, account.id, now, 2_000), await makeFile(database.db, local, account.id, now, 9_000, { permanent: true, expiresAt: null })];
  await makeFile(database.db, local, account.id, now - 7_200_000, 300, { expiresAt: now - 3_600_000 }); // expired: not copied

  const before = writeConfig(dataDir, 'before.yaml', { blobs_next: s3.blobsConfig });
  const env = { GATEWAY_CONFIG: before, GATEWAY_DATABASE_URL: database.url, GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: 'warn', GATEWAY_CACHE_URL: 'memory', ...s3.env };
  const first = await runCli(['files', 'migrate-store', '--to', 's3', '--json'], env);
  t.is(first.exitCode, 0, first.stderr);
  t.is(first.stderr, '', 'no progress with --json');
  const summary = JSON.parse(first.stdout);
  t.true(typeof summary.seconds === 'number' && summary.seconds >= 0);
  t.deepEqual(
    { ...summary, seconds: 0 },
    {
      from: `local directory ${path.join(dataDir, 'files')}`,
      to: `S3 bucket "gateway-test" at ${s3.endpoint}`,
      files: 2,
      copied: 2,
      skipped: 0,
      missing: [],
      mismatched: [],
      bytes: 11_000,
      seconds: 0,
      dry_run: false,
      interrupted: false,
      complete: true,
    },
  );

  // Read back with the gateway's S3 store (the official SDK): the exact bytes.
  const store = openBlobStore(loadConfig({ raw: { storage: { blobs: s3.blobsConfig } }, env: s3.env }).storage.blobs);
  t.teardown(() => store.close());
  for (const file of files) t.deepEqual(Buffer.from(await readAll(await store.open(file.key))), file.data);

  // Again, readable: nothing to copy, the text says what to do next; progress went to stderr.
  const second = await runCli(['files', 'migrate-store'], env);
  t.is(second.exitCode, 0, second.stderr);
  t.is(
    second.stdout.replace(/ in [0-9.]+s, /, ' in Ns, '),
    [
      'copied 0 file(s) (0 bytes) in Ns, skipped 2 already at the target, of 2 live file(s)',
      `from: local directory ${path.join(dataDir, 'files')}`,
      `to:   S3 bucket "gateway-test" at ${s3.endpoint}`,
      'every live file of this pass is at the target, verified by size and SHA-256. Nothing was switched.',
      'Files made while it ran are not in this pass: right before switching, stop writes or run it again (it copies only the new ones),',
      'then rename storage.blobs_next to storage.blobs in the configuration and restart serve and worker.',
    ].join('\n'),
  );
  t.is(second.stderr, `copying from the local directory ${path.join(dataDir, 'files')} to the S3 bucket "gateway-test" at ${s3.endpoint}\nfiles 2/2, 10.7 KB/10.7 KB, 0 bytes/s`);

  // A source blob gone: reported by id, exit 1, the summary still on stdout.
  const lost = await makeFile(database.db, local, account.id, now, 10);
  await local.delete(lost.key);
  const third = await runCli(['files', 'migrate-store', '--json'], env);
  t.is(third.exitCode, 1);
  const incomplete = JSON.parse(third.stdout);
  t.deepEqual({ ...incomplete, seconds: 0, from: '', to: '' }, { from: '', to: '', files: 3, copied: 0, skipped: 2, missing: [lost.id], mismatched: [], bytes: 0, seconds: 0, dry_run: false, interrupted: false, complete: false });
  t.regex(third.stderr, /^$/, 'a summary, not an error');
  await database.db('files').where({ id: lost.id }).update({ deleted_at: now });

  // Refusals are the catalog's: no target configured, a target that is the store in use.
  const bare = writeConfig(dataDir, 'bare.yaml', {});
  const refused = await runCli(['files', 'migrate-store', '--to', 's3', '--json'], { ...env, GATEWAY_CONFIG: bare });
  t.is(refused.exitCode, 1);
  t.is(refused.stdout, '');
  t.like(JSON.parse(refused.stderr), { error: { code: 'invalid_argument' } });
  t.regex(JSON.parse(refused.stderr).error.message, /^--to s3 copies to the S3 store described in storage\.blobs_next, which this configuration does not have/);

  // The switch: serve on storage.blobs = S3 answers the content from S3 (the local copies are moved away to prove it).
  const after = writeConfig(dataDir, 'after.yaml', { blobs: s3.blobsConfig });
  await rm(path.join(dataDir, 'files'), { recursive: true, force: true });
  const serve = await startServeProcess({ ...env, GATEWAY_CONFIG: after });
  t.teardown(() => serve.stop());
  for (const file of files) {
    const response = await fetch(`${serve.url}/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${key}` } });
    t.is(response.status, 200);
    t.deepEqual(Buffer.from(await response.arrayBuffer()), file.data);
  }
  // And the way back: --to local copies S3 → storage.dir, which the gateway reads once storage.blobs is local again.
  const back = await runCli(['files', 'migrate-store', '--to', 'local', '--json'], { ...env, GATEWAY_CONFIG: after });
  t.is(back.exitCode, 0, back.stderr);
  t.deepEqual(
    { ...JSON.parse(back.stdout), seconds: 0 },
    { from: `S3 bucket "gateway-test" at ${s3.endpoint}`, to: `local directory ${path.join(dataDir, 'files')}`, files: 2, copied: 2, skipped: 0, missing: [], mismatched: [], bytes: 11_000, seconds: 0, dry_run: false, interrupted: false, complete: true },
  );
  for (const file of files) t.deepEqual(readFileSync(path.join(dataDir, 'files', file.key)), file.data);
});
