// Videos as an API client sees them: the official openai@6 SDK creates (multipart), polls and
// downloads; `wait` returns the finished job; every job is charged exactly its quote once, or
// nothing when it fails; validation names the field; other accounts' ids are 404.
import OpenAI from 'openai';
import { cancelJob } from '../../src/pipeline/job-end.js';
import { readMp4Info } from '../../src/media-files/mp4.js';
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { api, assertJobMoneySettled, charges, pollJob, startJobGateway } from '../helpers/jobs.js';

testOnBackends('videos: openai@6 creates (multipart), retrieves until completed and downloads an MP4 of the requested length; charged the quote once', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const body = { model: 'sim/video', prompt: 'a calm sea at dawn [[sim:job-seconds=0.4]]', seconds: '8' as const, size: '1280x720' as const };
  const quote = (await openai.post('/videos/price', { body })) as any;
  t.is(quote.price_rub, '72.0000', '8 s × 9.00 RUB (720p)');
  let video = await openai.videos.create(body);
  t.is(video.object, 'video');
  t.is(video.status, 'queued');
  t.is(video.seconds, '8');
  t.is(video.size, '1280x720');
  t.is((video as any).held_rub, '72.0000');
  const id = video.id;
  video = await eventually(
    async () => {
      const current = await openai.videos.retrieve(id);
      return current.status === 'completed' || current.status === 'failed' ? current : undefined;
    },
    { what: `video ${id} ended`, intervalMs: 50 },
  );
  t.is(video.status, 'completed');
  t.is(video.progress, 100);
  t.is((video as any).charged_rub, '72.0000');
  t.true(video.expires_at! > video.completed_at!);
  const content = await openai.videos.downloadContent(video.id);
  t.is(content.headers.get('content-type'), 'video/mp4');
  const info = readMp4Info(new Uint8Array(await content.arrayBuffer()));
  t.truthy(info, 'the content is an MP4');
  t.is(info!.durationSeconds, 8);
  t.is(info!.width, 1280);
  t.is(info!.height, 720);
  t.deepEqual(await charges(database, client.accountId), [720_000n]);
  const history = await api(gateway, client.key, 'GET', '/v1/generations?type=video');
  t.is(history.status, 200);
  t.is(history.body.data[0].status, 'completed');
  t.is(history.body.data[0].charged_rub, '72.0000');
  t.is(history.body.data[0].file_ids.length, 1);
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('videos: wait returns the completed job; wait_timeout returns it unfinished; a failed job releases its hold', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const done = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'waves [[sim:job-seconds=0.3]]', seconds: 4, wait: true });
  t.is(done.status, 200);
  t.is(done.body.status, 'completed');
  t.is(done.body.charged_rub, '36.0000');
  // A 20 s job and a 1 s wait: the answer comes unfinished. Had wait_timeout been ignored, the
  // default wait (60 s) would have outlasted the job and the answer would say completed.
  const slow = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'slow waves [[sim:job-seconds=20]]', seconds: 4, wait: true, wait_timeout: 1 });
  t.true(['queued', 'in_progress'].includes(slow.body.status), `unfinished after 1 s: ${slow.body.status}`);
  const early = await api(gateway, client.key, 'GET', `/v1/videos/${slow.body.id}/content`);
  t.is(early.status, 409);
  t.regex(early.body.error.message, /status is (queued|in_progress)/);
  const failed = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'doomed [[sim:job-seconds=0.2]] [[sim:job-fail]]', seconds: 4, wait: true });
  t.is(failed.body.status, 'failed');
  t.truthy(failed.body.error.code);
  t.is(failed.body.charged_rub, '0.0000');
  const odd = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'odd [[sim:job-seconds=0.6]] [[sim:job-unknown]]', seconds: 4, wait: true });
  t.is(odd.body.status, 'completed', 'an undocumented upstream status is logged and polled through');
  const cancelled = await cancelJob(gateway.services, slow.body.id, 'cli');
  t.is(cancelled.status, 'cancelled');
  t.deepEqual(await charges(database, client.accountId), [360_000n, 360_000n], 'the completed jobs only');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('videos: validation names the field; another account sees 404; a name of another catalog is served with a Deprecation header', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const stranger = await gateway.newClient({ balanceUnits: 10_000_000n });
  const cases: [Record<string, unknown>, string][] = [
    [{ prompt: 'x'.repeat(32_001) }, 'prompt'],
    [{ prompt: '' }, 'prompt'],
    [{ prompt: 'x', seed: 2_147_483_648 }, 'seed'],
    [{ prompt: 'x', idempotency_key: 'k'.repeat(129) }, 'idempotency_key'],
    [{ prompt: 'x', webhook_url: `https://example.com/${'a'.repeat(2048)}` }, 'webhook_url'],
    [{ prompt: 'x', wait_timeout: 301 }, 'wait_timeout'],
    [{ prompt: 'x', wait_timeout: 0 }, 'wait_timeout'],
    [{ prompt: 'x', size: 'huge' }, 'size'],
    [{ prompt: 'x', size: '640x480' }, 'size'],
    [{ prompt: 'x', seconds: '5' }, 'seconds'],
    [{ prompt: 'x', input_reference: { image_url: 'https://example.com/a.png' } }, 'input_reference'],
  ];
  for (const [body, field] of cases) {
    const response = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', ...body });
    t.is(response.status, 422, `${JSON.stringify(body).slice(0, 80)} → 422`);
    t.is(response.body.detail[0].loc[1], field);
  }
  const loopbackHook = await startJobGateway(t, database, { webhooks: { allow_loopback: false } });
  const refused = await api(loopbackHook, (await loopbackHook.newClient({ balanceUnits: 1_000_000n })).key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'x', webhook_url: 'http://127.0.0.1:9/hook' });
  t.is(refused.status, 422);
  t.is(refused.body.detail[0].loc[1], 'webhook_url');
  // IPv6 forms carrying a loopback or metadata IPv4 address, and IPv4 special-purpose ranges (issue 13, item 9).
  const special: [string, string][] = [
    ['http://[64:ff9b::7f00:1]/hook', 'refused: 64:ff9b::7f00:1 is NAT64 (64:ff9b::/96) for 127.0.0.1, a loopback address (127.0.0.0/8); webhooks.allow_loopback is off'],
    ['http://[64:ff9b::a9fe:a9fe]/hook', 'refused: 64:ff9b::a9fe:a9fe is NAT64 (64:ff9b::/96) for 169.254.169.254, a link-local address, incl. cloud metadata (169.254.0.0/16); webhooks never call it'],
    ['http://[2002:7f00:1::]/hook', 'refused: 2002:7f00:1:: is 6to4 (2002::/16) for 127.0.0.1, a loopback address (127.0.0.0/8); webhooks.allow_loopback is off'],
    ['http://[::127.0.0.1]/hook', 'refused: ::7f00:1 is deprecated IPv4-compatible (::/96) for 127.0.0.1, a loopback address (127.0.0.0/8); webhooks.allow_loopback is off'],
    ['http://[2001::1]/hook', 'refused: 2001::1 is Teredo (2001::/32) for client 255.255.255.254, a reserved address (240.0.0.0/4); webhooks never call it'],
    ['http://198.18.0.1/hook', 'refused: 198.18.0.1 is a benchmarking address (198.18.0.0/15); webhooks never call it'],
  ];
  const specialClient = await loopbackHook.newClient({ balanceUnits: 1_000_000n });
  for (const [webhookUrl, message] of special) {
    const response = await api(loopbackHook, specialClient.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'x', webhook_url: webhookUrl });
    t.is(response.status, 422, webhookUrl);
    t.deepEqual([response.body.detail[0].loc, response.body.detail[0].msg], [['body', 'webhook_url'], message], webhookUrl);
  }
  t.deepEqual(await charges(database, specialClient.accountId), [], 'no refused webhook job was charged');
  t.deepEqual(await charges(database, client.accountId), [], 'nothing refused was charged');

  const video = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'mine [[sim:job-seconds=0.2]]', wait: true });
  t.is(video.body.status, 'completed', JSON.stringify(video.body));
  t.is((await api(gateway, stranger.key, 'GET', `/v1/videos/${video.body.id}`)).status, 404);
  t.is((await api(gateway, stranger.key, 'GET', `/v1/videos/${video.body.id}/content`)).status, 404);
  t.is((await api(gateway, client.key, 'GET', '/v1/videos/video_doesnotexist')).status, 404);
  const noScope = await gateway.newClient({ balanceUnits: 1_000_000n, scopes: ['chat'] });
  t.is((await api(gateway, noScope.key, 'POST', '/v1/videos', { prompt: 'x' })).status, 403);

  const aliased = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sora-2', prompt: 'aliased [[sim:job-seconds=0.2]]', size: '1280x720' });
  t.is(aliased.status, 200);
  t.is(aliased.headers.get('deprecation'), 'true');
  t.is(aliased.body.model, 'sim/video');
  const defaulted = await api(gateway, client.key, 'POST', '/v1/videos/price', { prompt: 'no model named' });
  t.is(defaulted.body.model, 'sim/video', 'the configured default video model');
});

testOnBackends('videos: content is served with Range (206, open-ended, suffix, 416, If-Range)', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const video = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'ranges [[sim:job-seconds=0.2]]', wait: true });
  const path = `${gateway.url}/v1/videos/${video.body.id}/content`;
  const auth = { authorization: `Bearer ${client.key}` };
  const whole = await fetch(path, { headers: auth });
  t.is(whole.status, 200);
  t.is(whole.headers.get('accept-ranges'), 'bytes');
  const bytes = Buffer.from(await whole.arrayBuffer());
  const size = bytes.length;
  t.is(Number(whole.headers.get('content-length')), size);
  const etag = whole.headers.get('etag')!;
  const part = await fetch(path, { headers: { ...auth, range: 'bytes=0-99' } });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 0-99/${size}`);
  t.is(part.headers.get('content-type'), 'video/mp4');
  t.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(0, 100));
  const open = await fetch(path, { headers: { ...auth, range: `bytes=${size - 10}-` } });
  t.is(open.status, 206);
  t.deepEqual(Buffer.from(await open.arrayBuffer()), bytes.subarray(size - 10));
  const suffix = await fetch(path, { headers: { ...auth, range: 'bytes=-7' } });
  t.is(suffix.headers.get('content-range'), `bytes ${size - 7}-${size - 1}/${size}`);
  t.deepEqual(Buffer.from(await suffix.arrayBuffer()), bytes.subarray(size - 7));
  const beyond = await fetch(path, { headers: { ...auth, range: `bytes=${size}-` } });
  t.is(beyond.status, 416);
  t.is(beyond.headers.get('content-range'), `bytes */${size}`);
  const sameTag = await fetch(path, { headers: { ...auth, range: 'bytes=0-0', 'if-range': etag } });
  t.is(sameTag.status, 206);
  const otherTag = await fetch(path, { headers: { ...auth, range: 'bytes=0-0', 'if-range': '"something-else"' } });
  t.is(otherTag.status, 200);
  t.is(Number(otherTag.headers.get('content-length')), size);
});
