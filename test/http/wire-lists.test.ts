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
  const first = await api(gateway, client.key, 'GET', '/v1/generations?type=image&limit=2');
  t.deepEqual(first.body.data.map((item: { prompt: string }) => item.prompt), ['three', 'two']);
  t.is(typeof first.body.next_cursor, 'number');
  const second = await api(gateway, client.key, 'GET', `/v1/generations?type=image&limit=2&cursor=${first.body.next_cursor}`);
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

// Issue 34 item 10: the spec's /generations lists one type, and its cursor is the id of an item
// of that type (the ids a client sees), not a row number of the mixed table.
testOnBackends('generations: `type` is required (422 on query.type); next_cursor is the last item id of that type', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const missing = await api(gateway, client.key, 'GET', '/v1/generations');
  t.is(missing.status, 422);
  t.like(missing.body.detail[0], { loc: ['query', 'type'], type: 'missing' });
  t.is(missing.body.error.param, 'type');

  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  // Interleaved types: the images' ids (1, 2, 3) are not the rows' positions in the history.
  for (const prompt of ['one', 'two']) {
    await api(gateway, client.key, 'POST', '/v1/audio/music', { model: 'sim/instrumental', prompt: `${prompt} [[sim:job-seconds=0.1]]`, wait: true });
    await openai.images.generate({ model: 'sim/image', prompt });
  }
  await openai.images.generate({ model: 'sim/image', prompt: 'three' });
  const first = await api(gateway, client.key, 'GET', '/v1/generations?type=image&limit=2');
  t.deepEqual(first.body.data.map((item: { id: number; prompt: string }) => [item.id, item.prompt]), [[3, 'three'], [2, 'two']]);
  t.is(first.body.next_cursor, 2, 'the id of the last image of the page');
  const second = await api(gateway, client.key, 'GET', `/v1/generations?type=image&limit=2&cursor=${first.body.next_cursor}`);
  t.deepEqual(second.body.data.map((item: { id: number }) => item.id), [1]);
  t.is(second.body.next_cursor, null);
  const music = await api(gateway, client.key, 'GET', '/v1/generations?type=music&limit=1');
  t.deepEqual(music.body.data.map((item: { id: number; type: string }) => [item.id, item.type]), [[2, 'music']]);
  t.is(music.body.next_cursor, 2);
  t.deepEqual((await api(gateway, client.key, 'GET', '/v1/generations?type=music&after=2')).body.data.map((item: { id: number }) => item.id), [1], '`after` is the same cursor');
});
