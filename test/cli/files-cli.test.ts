// The `files` CLI (the compiled binary) over a gateway's database: ls, show, keep, and gc of a
// file whose expiry has passed on the real clock (the CLI runs in its own process with it);
// gc on S3 storage, and while that store is down.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { runCli, runCliJson } from '../helpers/cli.js';
import { testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { api, fastJobsConfig } from '../helpers/jobs.js';
import { startS3Server } from '../helpers/s3-server.js';

testOnBackends('files CLI: lists, shows, keeps, and gc collects the expired file and its bytes only', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const kept = await gateway.services.files.save(client.accountId, 'upload', 'image/png', Buffer.alloc(700, 2));
  const env = { GATEWAY_CONFIG: exampleConfigPath, GATEWAY_DATABASE_URL: database.url, GATEWAY_DATA_DIR: gateway.services.config.dataDir, GATEWAY_LOG_LEVEL: 'warn' };
  const listed = await runCliJson(['files', 'ls', '--account', client.accountId], env);
  t.like(listed, { object: 'list', has_more: false, next_cursor: null });
  t.deepEqual(listed.data.map((file: any) => file.id), [kept.id]);
  const shown = await runCliJson(['files', 'show', String(kept.id)], env);
  t.is(shown.bytes, 700);
  t.is(shown.account_id, client.accountId);
  const keptNow = await runCliJson(['files', 'keep', String(kept.id)], env);
  t.true(keptNow.permanent);
  t.is((await runCli(['files', 'show', '999999'], env)).exitCode, 1);
  // Expired a second ago: no wait needed, and the CLI's own clock agrees.
  const expired = await gateway.services.files.save(client.accountId, 'upload', 'image/png', Buffer.alloc(500, 1), { expiresAt: Date.now() - 1_000 });
  t.deepEqual(await runCliJson(['files', 'gc'], env), { files: 1, bytes: 500 });
  t.truthy((await database.db('files').where({ id: expired.id }).first()).deleted_at);
  await t.throwsAsync(gateway.services.files.read({ ...expired }), undefined, 'its bytes are removed');
  t.is((await api(gateway, client.key, 'GET', `/v1/files/${kept.id}/content`)).status, 200, 'the kept file stays');
  t.deepEqual(await runCliJson(['files', 'gc'], env), { files: 0, bytes: 0 });
});

testOnBackends('files gc on S3 storage: removes the expired objects from the bucket; with the store down it exits 1 with storage_unavailable and marks nothing', async (t, database) => {
  const s3 = await startS3Server(t);
  const raw = fastJobsConfig();
  const config = { ...raw, storage: { ...raw.storage, blobs: s3.blobsConfig } };
  const gateway = await startGateway(t, database, { raw: config, env: s3.env });
  const client = await gateway.newClient();
  const configPath = path.join(mkdtempSync(path.join(tmpdir(), 'gw-cli-s3-')), 'gateway.yaml');
  writeFileSync(configPath, stringify(config));
  const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATABASE_URL: database.url, GATEWAY_DATA_DIR: gateway.services.config.dataDir, GATEWAY_LOG_LEVEL: 'warn', ...s3.env };
  const expired = await gateway.services.files.save(client.accountId, 'upload', 'image/png', Buffer.alloc(500, 1), { expiresAt: Date.now() - 1_000 });
  const live = await gateway.services.files.save(client.accountId, 'upload', 'image/png', Buffer.alloc(300, 2));
  await s3.interrupt();
  const down = await runCli(['files', 'gc', '--json'], env);
  t.is(down.exitCode, 1);
  const error = JSON.parse(down.stderr.trim().split('\n').at(-1)!).error;
  t.is(error.code, 'storage_unavailable');
  t.true(error.message.startsWith(`the ${gateway.services.blobs.description} is unavailable: `), error.message);
  t.is((await database.db('files').where({ id: expired.id }).first()).deleted_at, null, 'not marked while its object is still there');
  await s3.resume();
  t.deepEqual(await runCliJson(['files', 'gc'], env), { files: 1, bytes: 500 });
  t.is(await gateway.services.blobs.stat(expired.storageKey), undefined, 'the object is gone from the bucket');
  t.deepEqual(await gateway.services.blobs.stat(live.storageKey), { bytes: 300 });
});
