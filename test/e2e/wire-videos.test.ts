// Issue 14 item 8: videos as the openai@6 SDK calls them beyond create/retrieve: list with its
// pagination, delete (content gone, charge kept), the thumbnail variant (a clear 404).
import OpenAI from 'openai';
import { patternPng } from '../../src/sim/media/png.js';
import { testOnBackends } from '../helpers/backends.js';
import { api, assertJobMoneySettled, charges, startJobGateway } from '../helpers/jobs.js';

testOnBackends('videos: list pages as videos.list() asks, delete removes the content and keeps the charge, thumbnail is a clear 404', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const stranger = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const ids: string[] = [];
  for (const word of ['one', 'two', 'three']) {
    const created = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: `${word} [[sim:job-seconds=0.1]]`, seconds: '4', wait: true });
    t.is(created.body.status, 'completed');
    ids.push(created.body.id);
  }
  const first = await openai.videos.list({ limit: 2 });
  t.deepEqual(first.data.map((video) => video.id), [ids[2], ids[1]], 'newest first');
  t.true(first.hasNextPage());
  const second = await first.getNextPage();
  t.deepEqual(second.data.map((video) => video.id), [ids[0]]);
  t.false(second.hasNextPage());
  const all: string[] = [];
  for await (const video of openai.videos.list({ limit: 1, order: 'asc' })) all.push(video.id);
  t.deepEqual(all, ids, 'auto-pagination, oldest first');
  t.deepEqual((await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: stranger.key, maxRetries: 0 }).videos.list()).data, [], 'own account only');

  const thumbnail = (await t.throwsAsync(openai.videos.downloadContent(ids[0]!, { variant: 'thumbnail' }))) as any;
  t.is(thumbnail.status, 404);
  t.regex(thumbnail.message, /thumbnail .* not available/);

  const deleted = await openai.videos.delete(ids[0]!);
  t.deepEqual(deleted, { id: ids[0], object: 'video.deleted', deleted: true });
  t.is(((await t.throwsAsync(openai.videos.downloadContent(ids[0]!))) as any).status, 404, 'the content is gone');
  // Issue 34 item 7: gone for its owner as on OpenAI; the charge stays in the history.
  const retrieved = (await t.throwsAsync(openai.videos.retrieve(ids[0]!))) as any;
  t.is(retrieved.status, 404, 'a deleted video is not found');
  t.is(retrieved.error.message, `No video found with id '${ids[0]}'.`);
  t.is(((await t.throwsAsync(openai.videos.delete(ids[0]!))) as any).status, 404, 'deleting it again: not found');
  t.deepEqual((await openai.videos.list()).data.map((video) => video.id), [ids[2], ids[1]], 'nor listed');
  t.deepEqual((await openai.videos.list({ after: ids[1]!, limit: 5 })).data.map((video) => video.id), [], 'after the deleted one: nothing older');
  const history = await api(gateway, client.key, 'GET', '/v1/history');
  t.deepEqual(history.body.data.filter((row: any) => row.kind === 'charge').map((row: any) => row.amount_rub), ['-36.0000', '-36.0000', '-36.0000'], 'its charge stays in the history');
  t.is((await openai.videos.downloadContent(ids[1]!)).status, 200, 'the others are untouched');
  t.is(((await t.throwsAsync(new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: stranger.key, maxRetries: 0 }).videos.delete(ids[1]!))) as any).status, 404);
  t.deepEqual(await charges(database, client.accountId), [360_000n, 360_000n, 360_000n]);
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('videos: input_references and every input_reference shape are accepted and priced the same in the quote and the charge; URLs are refused by field', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const png = patternPng(64, 36, 'reference');
  const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
  const stored = await gateway.services.files.save(client.accountId, 'upload', 'image/png', png);
  const base = { model: 'sim/video', prompt: 'a lighthouse [[sim:job-seconds=0.1]]', seconds: '4' };
  // 4 s × 9.00 RUB + one reference × 1.80 RUB.
  const shapes = [{ input_references: [dataUrl] }, { input_references: [String(stored.id)] }, { input_reference: { image_url: dataUrl } }, { input_reference: { file_id: String(stored.id) } }, { input_reference: dataUrl }];
  for (const shape of shapes) {
    const quote = await api(gateway, client.key, 'POST', '/v1/videos/price', { ...base, ...shape });
    t.is(quote.status, 200, JSON.stringify(shape).slice(0, 60));
    t.is(quote.body.references, 1);
    t.is(quote.body.price_rub, '37.8000');
  }
  const created = await api(gateway, client.key, 'POST', '/v1/videos', { ...base, input_references: [dataUrl], wait: true });
  t.is(created.body.status, 'completed');
  t.is(created.body.charged_rub, '37.8000', 'the reference is charged as quoted');
  const fromFile = await api(gateway, client.key, 'POST', '/v1/videos', { ...base, input_reference: { file_id: String(stored.id) }, wait: true });
  t.is(fromFile.body.charged_rub, '37.8000');
  t.deepEqual(await charges(database, client.accountId), [378_000n, 378_000n]);

  const refusals: [Record<string, unknown>, unknown[]][] = [
    [{ input_references: ['https://example.com/a.png'] }, ['body', 'input_references', 0]],
    [{ input_references: [dataUrl, dataUrl] }, ['body', 'input_reference']],
    [{ input_references: ['not a reference'] }, ['body', 'input_references', 0]],
    [{ input_reference: { image_url: 'https://example.com/a.png' } }, ['body', 'input_reference', 'image_url']],
  ];
  for (const [shape, loc] of refusals) {
    const refused = await api(gateway, client.key, 'POST', '/v1/videos', { ...base, ...shape });
    t.is(refused.status, 422, JSON.stringify(shape).slice(0, 60));
    t.deepEqual(refused.body.detail[0].loc, loc);
  }
  const missing = await api(gateway, client.key, 'POST', '/v1/videos', { ...base, input_references: ['999999'] });
  t.is(missing.status, 422);
  t.deepEqual(missing.body.detail[0].loc, ['body', 'input_references', 0]);
  await assertJobMoneySettled(t, database, client.accountId);
});

// Issue 34 item 14: the spec's video prompt is 1–30000 characters, on the quote as on the create.
testOnBackends('videos: the prompt is 1–30000 characters on /videos/price and /videos alike', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const base = { model: 'sim/video', seconds: '4' };
  const longest = `[[sim:job-seconds=0.1]] ${'w'.repeat(30_000)}`.slice(0, 30_000);
  t.is((await api(gateway, client.key, 'POST', '/v1/videos/price', { ...base, prompt: longest })).body.price_rub, '36.0000');
  for (const path of ['/v1/videos/price', '/v1/videos']) {
    const over = await api(gateway, client.key, 'POST', path, { ...base, prompt: `${longest}w` });
    t.is(over.status, 422, path);
    t.like(over.body.detail[0], { loc: ['body', 'prompt'], type: 'string_too_long', ctx: { max_length: 30_000 } });
    const empty = await api(gateway, client.key, 'POST', path, { ...base, prompt: '' });
    t.like(empty.body.detail[0], { loc: ['body', 'prompt'], type: 'string_too_short', ctx: { min_length: 1 } });
  }
  t.deepEqual(await charges(database, client.accountId), []);
});
