// Stored files and the generation history over HTTP: own account only (others' ids are 404),
// newest first with cursors, keep within the permanent quota (409 beyond it, also when two
// keeps race), content with Range, expired files gone at once and their bytes after gc (on
// the gateway's test clock). The `files` CLI: test/cli/files-cli.test.ts.
import OpenAI from 'openai';
import type { StoredFile } from '../../src/storage/files.js';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { api, fastJobsConfig } from '../helpers/jobs.js';

testOnBackends('files: listed newest first with cursors, read with Range, kept within the quota; other accounts see 404', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig({ storage: { temp_ttl: '1h', permanent_quota: '3KB' } }) });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const stranger = await gateway.newClient({ balanceUnits: 10_000_000n });
  const files = gateway.services.files;
  const saved: StoredFile[] = [];
  for (let index = 0; index < 5; index++) saved.push(await files.save(client.accountId, 'upload', 'audio/mpeg', Buffer.alloc(1000, index), { filename: `f${index}.mp3` }));
  const first = await api(gateway, client.key, 'GET', '/v1/files?limit=2');
  t.is(first.status, 200);
  t.deepEqual(first.body.data.map((file: any) => file.id), [saved[4]!.id, saved[3]!.id]);
  t.true(first.body.has_more);
  const second = await api(gateway, client.key, 'GET', `/v1/files?limit=2&after=${first.body.next_cursor}`);
  t.deepEqual(second.body.data.map((file: any) => file.id), [saved[2]!.id, saved[1]!.id]);
  t.is((await api(gateway, client.key, 'GET', '/v1/files?limit=201')).status, 422);
  t.is((await api(gateway, client.key, 'GET', '/v1/files?after=bogus')).status, 422);
  const one = await api(gateway, client.key, 'GET', `/v1/files/${saved[0]!.id}`);
  t.like(one.body, { id: saved[0]!.id, object: 'file', purpose: 'upload', media_type: 'audio/mpeg', filename: 'f0.mp3', bytes: 1000, permanent: false });
  t.true(one.body.expires_at > one.body.created_at);
  t.is((await api(gateway, stranger.key, 'GET', `/v1/files/${saved[0]!.id}`)).status, 404);
  t.is((await api(gateway, stranger.key, 'GET', `/v1/files/${saved[0]!.id}/content`)).status, 404);
  t.is((await api(gateway, stranger.key, 'PATCH', `/v1/files/${saved[0]!.id}/keep`)).status, 404);
  t.is((await api(gateway, client.key, 'GET', '/v1/files/abc')).status, 422); // not an integer (issue 14 item 12)
  t.deepEqual((await api(gateway, stranger.key, 'GET', '/v1/files')).body.data, []);

  const part = await fetch(`${gateway.url}/v1/files/${saved[1]!.id}/content`, { headers: { authorization: `Bearer ${client.key}`, range: 'bytes=-10' } });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), 'bytes 990-999/1000');
  t.deepEqual(Buffer.from(await part.arrayBuffer()), Buffer.alloc(10, 1));

  // 3 KB quota, 1000-byte files: two concurrent keeps fit, then one more fits, the fourth does not.
  const racing = await Promise.all([0, 1].map((index) => api(gateway, client.key, 'PATCH', `/v1/files/${saved[index]!.id}/keep`)));
  t.deepEqual(racing.map((answer) => answer.status), [200, 200]);
  t.is(racing[0]!.body.permanent, true);
  t.is(racing[0]!.body.expires_at, null);
  t.is((await api(gateway, client.key, 'PATCH', `/v1/files/${saved[0]!.id}/keep`)).status, 200, 'keeping a kept file changes nothing');
  t.is((await api(gateway, client.key, 'PATCH', `/v1/files/${saved[2]!.id}/keep`)).status, 200);
  const over = await api(gateway, client.key, 'PATCH', `/v1/files/${saved[3]!.id}/keep`);
  t.is(over.status, 409);
  t.regex(over.body.error.message, /3000 of 3072 bytes/);
  const concurrent = await Promise.all([3, 4].map((index) => files.keep(client.accountId, saved[index]!.id, 4096).then(() => 'kept', (error) => error.name)));
  t.deepEqual(concurrent.sort(), ['QuotaExceededError', 'kept'], 'two keeps racing for the last kilobyte: exactly one wins');
});

testOnBackends('files: an expired file is gone for its client at once; gc removes its bytes and leaves the kept file', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { raw: fastJobsConfig(), now: clock.now });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const files = gateway.services.files;
  const kept = await files.save(client.accountId, 'upload', 'image/png', Buffer.alloc(700, 2));
  await files.keep(client.accountId, kept.id, 1_000_000);
  const expiring = await files.save(client.accountId, 'upload', 'image/png', Buffer.alloc(500, 1), { expiresAt: clock.now() + 300_000 });
  clock.advance(299_999);
  t.is((await api(gateway, client.key, 'GET', `/v1/files/${expiring.id}`)).status, 200, 'still there 1 ms before it expires');
  t.deepEqual(await files.collectGarbage(), { files: 0, bytes: 0 }, 'nothing has expired yet');
  clock.advance(1);
  t.is((await api(gateway, client.key, 'GET', `/v1/files/${expiring.id}`)).status, 404, 'an expired file is gone for the client at once');
  t.is((await api(gateway, client.key, 'GET', `/v1/files/${expiring.id}/content`)).status, 404);
  t.deepEqual(await files.collectGarbage(), { files: 1, bytes: 500 });
  const row = await database.db('files').where({ id: expiring.id }).first();
  t.is(Number(row.deleted_at), clock.now());
  await t.throwsAsync(files.read({ ...expiring }), undefined, 'its bytes are removed');
  t.is((await api(gateway, client.key, 'GET', `/v1/files/${kept.id}/content`)).status, 200, 'the kept file stays');
  t.deepEqual(await files.collectGarbage(), { files: 0, bytes: 0 });
});

testOnBackends('generations: per-type ids, newest first, type filter, content by index; other accounts 404', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const stranger = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  await openai.images.generate({ model: 'sim/image', prompt: 'first', n: 2 } as any);
  await openai.images.generate({ model: 'sim/image', prompt: 'second' } as any);
  const all = await api(gateway, client.key, 'GET', '/v1/generations?type=image');
  t.is(all.status, 200);
  t.deepEqual(all.body.data.map((item: any) => item.prompt), ['second', 'first', 'first']);
  const [newest] = all.body.data;
  t.like(newest, { object: 'generation', type: 'image', model: 'sim/image', status: 'completed', charged_rub: '3.7800' });
  t.is(newest.file_ids.length, 1);
  t.deepEqual(all.body.data.map((item: any) => item.id), [newest.id, newest.id - 1, newest.id - 2], 'ids count per type');
  t.is((await api(gateway, client.key, 'GET', '/v1/generations?type=music')).body.data.length, 0);
  t.is((await api(gateway, client.key, 'GET', '/v1/generations?type=sound')).status, 422);
  const item = await api(gateway, client.key, 'GET', `/v1/generations/image/${newest.id}`);
  t.is(item.body.prompt, 'second');
  const content = await fetch(`${gateway.url}/v1/generations/image/${newest.id}/content`, { headers: { authorization: `Bearer ${client.key}` } });
  t.is(content.status, 200);
  t.is(content.headers.get('content-type'), 'image/png');
  t.is((await api(gateway, client.key, 'GET', `/v1/generations/image/${newest.id}/content?index=1`)).status, 404);
  t.is((await api(gateway, stranger.key, 'GET', `/v1/generations/image/${newest.id}`)).status, 404);
  t.is((await api(gateway, stranger.key, 'GET', `/v1/generations/image/${newest.id}/content`)).status, 404);
  t.is((await api(gateway, client.key, 'GET', `/v1/generations/video/${newest.id}`)).status, 404, 'ids are per type');
});
