// Kling's video adapter against the examples of Kling's published API reference (text to video,
// image to video, task query, error codes) and a failed task as Kling answers it: requests
// built, answers and errors read, the JWT made as the reference makes it. No network.
import { createHmac } from 'node:crypto';
import test from 'ava';
import type { VideoJobRequest } from '../../src/model/jobs.js';
import { klingCredentials } from '../../src/vendors/kling/credentials.js';
import { klingCodeError, parseKlingError } from '../../src/vendors/kling/errors.js';
import { klingJwt, klingKeys } from '../../src/vendors/kling/jwt.js';
import { klingVendor } from '../../src/vendors/kling/vendor.js';
import type { MediaHttpResponse, MediaTarget } from '../../src/vendors/media-types.js';
import { jobAdapterFor } from '../../src/vendors/registry.js';
import type { CredentialSource } from '../../src/vendors/shared/http-transport.js';
import { UpstreamError } from '../../src/vendors/types.js';

const adapter = jobAdapterFor('kling', 'video')!;
const operations = adapter.video!;
const target = (model: string): MediaTarget => ({ model, baseUrl: 'https://api-singapore.klingai.com', apiKey: 'jwt-token' });

function json(body: unknown, status = 200): MediaHttpResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(body)) };
}

function decode(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

test('the kind: video jobs only, no idempotency header but jobs named and found by the submit key; Kling\'s global endpoint by default', (t) => {
  t.is(adapter.kind, 'kling');
  t.is(adapter.idempotencyHeader, undefined);
  t.truthy(operations.named);
  t.is(jobAdapterFor('kling', 'music'), undefined);
  t.is(jobAdapterFor('kling', 'videoUpscale'), undefined);
  t.is(klingVendor.defaultBaseUrl, 'https://api-singapore.klingai.com');
  t.is(klingVendor.chat, undefined);
});

test('the JWT: HS256 header, iss = access key, nbf 5 s before and exp 30 min after now, signed with the secret key', (t) => {
  const token = klingJwt({ accessKey: 'AK123', secretKey: 'SK456' }, 1_722_769_557);
  const [header, payload, signature] = token.split('.');
  t.deepEqual(decode(header!), { alg: 'HS256', typ: 'JWT' });
  t.deepEqual(decode(payload!), { iss: 'AK123', exp: 1_722_771_357, nbf: 1_722_769_552 });
  t.is(signature, createHmac('sha256', 'SK456').update(`${header}.${payload}`).digest('base64url'));
});

test('the key is ACCESS:SECRET; anything else is a 401 that names the expected form', (t) => {
  t.deepEqual(klingKeys('AK:SK'), { accessKey: 'AK', secretKey: 'SK' });
  for (const bad of [undefined, 'no-colon', ':SK', 'AK:']) {
    const error = t.throws(() => klingKeys(bad), { instanceOf: UpstreamError }) as UpstreamError;
    t.is(error.status, 401);
    t.false(error.retryable);
    t.regex(error.message, /ACCESS_KEY:SECRET_KEY/);
  }
});

test('credentials: one token per upstream and key, reused until a minute before it expires, then a new one', async (t) => {
  const source = { name: 'kling-cache-test', apiKey: 'AK:SK' } as CredentialSource;
  const signal = new AbortController().signal;
  const start = 1_800_000_000_000;
  const first = await klingCredentials(source, signal, () => start);
  t.is(await klingCredentials(source, signal, () => start + 28 * 60_000), first, 'still valid for 2 minutes: reused');
  const renewed = await klingCredentials(source, signal, () => start + 29 * 60_000 + 1);
  t.not(renewed, first, 'within a minute of exp: renewed');
  t.is((decode(renewed.split('.')[1]!) as { nbf: number }).nbf, Math.floor((start + 29 * 60_000 + 1) / 1000) - 5);
  const other = await klingCredentials({ ...source, apiKey: 'AK2:SK' }, signal, () => start + 29 * 60_000 + 1);
  t.not(other, renewed, 'another key: its own token');
});

test('text to video: the reference\'s example body (model_name, prompt, mode, duration as a string, aspect_ratio) + external_task_id', (t) => {
  const request: VideoJobRequest = { prompt: 'A majestic eagle soaring over snow-capped mountains at sunrise', seconds: 10, size: '1920x1080', seed: 7 };
  const built = operations.named!.submit('gw-job_1').build(request, target('kling-v1:pro'));
  t.is(built.url, 'https://api-singapore.klingai.com/v1/videos/text2video');
  t.is(built.method, 'POST');
  t.is(built.headers.authorization, 'Bearer jwt-token');
  t.deepEqual(built.body, {
    json: { model_name: 'kling-v1', prompt: 'A majestic eagle soaring over snow-capped mountains at sunrise', duration: '10', mode: 'pro', external_task_id: 'gw-job_1', aspect_ratio: '16:9' },
  });
  const portrait = operations.submit.build({ prompt: 'p', seconds: 5, size: '720x1280' }, target('kling-v2-master'));
  t.deepEqual(portrait.body, { json: { model_name: 'kling-v2-master', prompt: 'p', duration: '5', aspect_ratio: '9:16' } }, 'no mode in the route model: Kling\'s default');
  t.deepEqual((operations.submit.build({ prompt: 'p', seconds: 5, size: '720x720' }, target('kling-v2-1:std')).body as { json: { aspect_ratio: string } }).json.aspect_ratio, '1:1');
});

test('image to video: the reference image as plain base64 (no data: prefix), no aspect_ratio', (t) => {
  const image = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const request: VideoJobRequest = { prompt: 'The person slowly turns their head and smiles', seconds: 5, size: '1280x720', reference: { data: image, mediaType: 'image/png', filename: 'face.png' } };
  const built = operations.named!.submit('gw-job_2').build(request, target('kling-v2-1:pro'));
  t.is(built.url, 'https://api-singapore.klingai.com/v1/videos/image2video');
  t.deepEqual(built.body, {
    json: { model_name: 'kling-v2-1', prompt: 'The person slowly turns their head and smiles', duration: '5', mode: 'pro', external_task_id: 'gw-job_2', image: Buffer.from(image).toString('base64') },
  });
});

test('the create answer: the task id, stored with the endpoint that polls it', (t) => {
  const answer = json({ code: 0, message: 'SUCCEED', request_id: 'req-1', data: { task_id: '860437265297858622', task_status: 'submitted', task_info: { external_task_id: 'gw-job_1' }, created_at: 1722769557708, updated_at: 1722769557708 } });
  t.deepEqual(operations.submit.parse(answer, { prompt: 'p', seconds: 5, size: '1280x720' }, target('kling-v1')), { upstreamId: 'text2video:860437265297858622' });
  const withImage = { prompt: 'p', seconds: 5, size: '1280x720', reference: { data: new Uint8Array([1]), mediaType: 'image/png', filename: 'a.png' } };
  t.deepEqual(operations.submit.parse(answer, withImage, target('kling-v1')), { upstreamId: 'image2video:860437265297858622' });
  const error = t.throws(() => operations.submit.parse(json({ code: 0, message: 'SUCCEED', data: {} }), { prompt: 'p', seconds: 5, size: '1280x720' }, target('kling-v1')), { instanceOf: UpstreamError }) as UpstreamError;
  t.is(error.upstreamType, 'invalid_response');
});

test('poll: GET of the task at its endpoint; submitted → queued, processing → running, succeed → the video, failed → its task_status_msg', (t) => {
  t.is(operations.poll.build('image2video:860437265297858622', target('kling-v1')).url, 'https://api-singapore.klingai.com/v1/videos/image2video/860437265297858622');
  t.is(operations.poll.build('860437265297858622', target('kling-v1')).url, 'https://api-singapore.klingai.com/v1/videos/text2video/860437265297858622', 'an id without an endpoint: text to video');
  const task = (data: Record<string, unknown>) => json({ code: 0, message: 'SUCCEED', request_id: 'r', data: { task_id: '1', task_info: {}, created_at: 1722769557708, updated_at: 1722769557708, ...data } });
  t.deepEqual(operations.poll.parse(task({ task_status: 'submitted' }), '1', target('m')), { state: 'queued', raw: 'submitted', progress: 0 });
  t.deepEqual(operations.poll.parse(task({ task_status: 'processing' }), '1', target('m')), { state: 'running', raw: 'processing' });
  const url = 'https://p1.a.kwimgs.com/bs2/upload-ylab-stunt/special-effect/output/HB1_PROD_ai_web_46554461/-2878350957757294165/output.mp4';
  t.deepEqual(operations.poll.parse(task({ task_status: 'succeed', task_status_msg: '', final_unit_deduction: '2', task_result: { videos: [{ id: 'v1', url, duration: '5.1' }] } }), '1', target('m')), {
    state: 'completed',
    raw: 'succeed',
    assets: [{ url, mediaType: 'video/mp4', durationSeconds: 5.1 }],
  });
  // A failed task as Kling answers it: code 0, message SUCCEED, the reason in task_status_msg.
  t.deepEqual(operations.poll.parse(task({ task_status: 'failed', task_status_msg: 'Image pixel is invalid', task_result: {} }), '1', target('m')), {
    state: 'failed',
    raw: 'failed',
    code: 'kling_task_failed',
    message: 'Image pixel is invalid',
  });
  t.deepEqual(operations.poll.parse(task({ task_status: 'rendering' }), '1', target('m')), { state: 'unknown', raw: 'rendering' });
});

test('download: the video from Kling\'s CDN carries no key; from Kling\'s own origin it does', (t) => {
  const cdn = operations.download.build({ url: 'https://p1.a.kwimgs.com/x/output.mp4', mediaType: 'video/mp4' }, target('m'));
  t.false("authorization" in cdn.headers);
  const own = operations.download.build({ url: 'https://api-singapore.klingai.com/files/1.mp4', mediaType: 'video/mp4' }, target('m'));
  t.is(own.headers.authorization, 'Bearer jwt-token');
});

test('find: the task by its external_task_id at the job\'s endpoint; Kling\'s "not found" (1203, in a 200 or a 404) is no task', (t) => {
  const find = operations.named!.find;
  const request = { prompt: 'p', seconds: 5, size: '1280x720' };
  t.is(find.build({ key: 'gw-job_1', request }, target('m')).url, 'https://api-singapore.klingai.com/v1/videos/text2video/gw-job_1');
  t.is(find.build({ key: 'gw-job_1', request }, target('m')).method, 'GET');
  const found = json({ code: 0, message: 'SUCCEED', data: { task_id: '42', task_status: 'processing', task_info: { external_task_id: 'gw-job_1' } } });
  t.deepEqual(find.parse(found, { key: 'gw-job_1', request }, target('m')), { upstreamId: 'text2video:42' });
  t.is(find.parse(json({ code: 1203, message: 'task not found' }), { key: 'gw-job_1', request }, target('m')), undefined);
  t.is(parseKlingError(404, JSON.stringify({ code: 1203, message: 'task not found', request_id: 'r' })).status, 404, 'the pipeline reads a 404 as no task');
  const refused = t.throws(() => find.parse(json({ code: 1004, message: 'token expired' }), { key: 'gw-job_1', request }, target('m')), { instanceOf: UpstreamError }) as UpstreamError;
  t.is(refused.status, 401);
});

test('errors: Kling\'s codes, in a 200 envelope or with their HTTP status, become statuses the gateway retries or not', (t) => {
  // The reference's concurrency example.
  const concurrency = parseKlingError(429, JSON.stringify({ code: 1303, message: 'parallel task over resource pack limit', request_id: 'uuid' }));
  t.like(concurrency, { status: 429, retryable: true, upstreamType: '1303' });
  t.regex(concurrency.message, /parallel task over resource pack limit/);
  const cases: [number, number, boolean, string][] = [
    [1000, 401, false, '1000'],
    [1004, 401, false, '1004'],
    [1102, 402, false, '1102'],
    [1103, 403, false, '1103'],
    [1201, 400, false, '1201'],
    [1301, 400, false, 'content_policy'],
    [1302, 429, true, '1302'],
    [5000, 500, true, '5000'],
    [5001, 503, true, '5001'],
    [5002, 504, true, '5002'],
  ];
  for (const [code, status, retryable, type] of cases) t.like(klingCodeError(code, 'm', 200), { status, retryable, upstreamType: type }, String(code));
  // Kling answers many errors with HTTP 200: the envelope's code decides.
  const policy = t.throws(() => operations.submit.parse(json({ code: 1301, message: 'Failure to pass the risk control system', request_id: 'r' }), { prompt: 'p', seconds: 5, size: '1280x720' }, target('m')), { instanceOf: UpstreamError }) as UpstreamError;
  t.like(policy, { status: 400, retryable: false, upstreamType: 'content_policy' });
  t.like(parseKlingError(502, '<html>bad gateway</html>'), { status: 502, retryable: true });
  t.like(parseKlingError(400, JSON.stringify({ code: 9999, message: 'new code' })), { status: 400, retryable: false, upstreamType: '9999' });
});
