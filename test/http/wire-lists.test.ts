// Issue 14 items 6 and 12 (ids): the spec pages /v1/files and /v1/generations with `cursor`,
// an integer (the previous page's `next_cursor`); `after` stays an alias. Ids the spec types
// as integers are 422 with `detail` when they are not integers.
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';
import { api, fastJobsConfig } from '../helpers/jobs.js';

testOnBackends('files and generations: `cursor` pages with integer next_cursor until the end; `after` is an alias', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const saved = [];
  for (let index = 0; index < 5; index++) saved.push(await gateway.services.files.save(client.accountId, 'upload', 'audio/mpeg', Buffer.alloc(10, index)));
  const ids: number[] = [];
  let cursor: number | null | undefined;
  for (let page = 0; page < 5 && cursor !== null; page++) {
    const answer = await api(gateway, client.key, 'GET', `/v1/files?limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`);
    t.is(answer.status, 200);
    ids.push(...answer.body.data.map((file: { id: number }) => file.id));
    cursor = answer.body.next_cursor;
    t.is(answer.body.has_more, cursor !== null);
    if (cursor !== null) t.is(cursor, ids.at(-1), 'next_cursor is the last id of the page, an integer');
  }
  t.deepEqual(ids, saved.map((file) => file.id).reverse(), 'every file once, newest first');
  t.deepEqual((await api(gateway, client.key, 'GET', `/v1/files?limit=2&after=${saved[3]!.id}`)).body.data.map((file: { id: number }) => file.id), [saved[2]!.id, saved[1]!.id]);
  const bad = await api(gateway, client.key, 'GET', '/v1/files?cursor=bogus');
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0].loc, ['query', 'cursor']);

  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  for (const prompt of ['one', 'two', 'three']) await openai.images.generate({ model: 'sim/image', prompt });
  const first = await api(gateway, client.key, 'GET', '/v1/generations?limit=2');
  t.deepEqual(first.body.data.map((item: { prompt: string }) => item.prompt), ['three', 'two']);
  t.is(typeof first.body.next_cursor, 'number');
  const second = await api(gateway, client.key, 'GET', `/v1/generations?limit=2&cursor=${first.body.next_cursor}`);
  t.deepEqual(second.body.data.map((item: { prompt: string }) => item.prompt), ['one']);
  t.is(second.body.next_cursor, null);
  t.false(second.body.has_more);
});

testOnBackends('ids typed as integers: a non-integer is a 422 with detail, an unknown integer a 404', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  for (const path of ['/v1/files/abc', '/v1/files/abc/content', '/v1/generations/image/abc', '/v1/generations/image/abc/content']) {
    const answer = await api(gateway, client.key, 'GET', path);
    t.is(answer.status, 422, path);
    t.like(answer.body.detail[0], { loc: ['path', 'id'], type: 'int_parsing', input: 'abc' });
    t.is(answer.body.error.code, 'validation_error');
  }
  t.is((await api(gateway, client.key, 'GET', '/v1/files/999999')).status, 404);
  t.is((await api(gateway, client.key, 'GET', '/v1/generations/image/999999/content')).status, 404);
});
