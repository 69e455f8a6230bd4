// The `files` CLI (the compiled binary) over a gateway's database: ls, show, keep, and gc of a
// file whose expiry has passed on the real clock (the CLI runs in its own process with it).
import { runCli, runCliJson } from '../helpers/cli.js';
import { testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { api, fastJobsConfig } from '../helpers/jobs.js';

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
