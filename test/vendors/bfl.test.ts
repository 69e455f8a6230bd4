// FLUX (Black Forest Labs) converters against the shapes of BFL's published API reference:
// the submit bodies per model family, the submit → poll → sample chain of `follow`, the
// terminal statuses, and the error bodies (FastAPI `detail`, and the storage host's XML for an
// expired sample). No network.
import test from 'ava';
import type { ImageGenerationRequest } from '../../src/model/media.js';
import { parseBflError } from '../../src/vendors/bfl/errors.js';
import { bflImageOperation, followTask, parseSample, ratioOfSize } from '../../src/vendors/bfl/images.js';
import type { MediaHttpResponse, MediaTarget } from '../../src/vendors/media-types.js';
import { UpstreamError } from '../../src/vendors/types.js';

const target: MediaTarget = { model: 'flux-pro-1.1', baseUrl: 'https://api.bfl.ai', apiKey: 'bfl-key' };
const kontext: MediaTarget = { ...target, model: 'flux-kontext-pro', settings: { safety_tolerance: 2 } };
const request: ImageGenerationRequest = { prompt: 'ein fantastisches bild', n: 1, outputFormat: 'png', images: [] };
const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077', 'hex');

function json(body: unknown, url?: string): MediaHttpResponse {
  return { url, status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
}

test('submit: sized models get width/height, the key in x-key, jpeg or png', (t) => {
  t.deepEqual(bflImageOperation.build({ ...request, size: '1024x768', outputFormat: 'jpeg' }, target), {
    url: 'https://api.bfl.ai/v1/flux-pro-1.1',
    method: 'POST',
    headers: { 'x-key': 'bfl-key', accept: 'application/json' },
    body: { json: { prompt: 'ein fantastisches bild', width: 1024, height: 768, output_format: 'jpeg' } },
  });
  // webp is drawn as png (the gateway converts it); "auto" and no size leave FLUX's default.
  t.deepEqual(bflImageOperation.build({ ...request, size: 'auto', outputFormat: 'webp' }, target).body, { json: { prompt: 'ein fantastisches bild', output_format: 'png' } });
});

test('submit: Kontext and Ultra get aspect_ratio (from the request, else from the size); references as input_image, input_image_2…', (t) => {
  const references = [1, 2].map((index) => ({ data: Buffer.from(`image ${index}`), mediaType: 'image/png', filename: `${index}.png` }));
  t.deepEqual(bflImageOperation.build({ ...request, aspectRatio: '16:9', size: '1360x768', images: references }, kontext).body, {
    json: { prompt: 'ein fantastisches bild', input_image: Buffer.from('image 1').toString('base64'), input_image_2: Buffer.from('image 2').toString('base64'), aspect_ratio: '16:9', output_format: 'png', safety_tolerance: 2 },
  });
  t.deepEqual(bflImageOperation.build({ ...request, size: '1536x1024' }, { ...target, model: 'flux-pro-1.1-ultra' }).body, { json: { prompt: 'ein fantastisches bild', aspect_ratio: '3:2', output_format: 'png' } });
  t.is(ratioOfSize('1024x1024'), '1:1');
  t.is(ratioOfSize('auto'), undefined);
});

test('submit: what FLUX cannot do is refused before anything is sent (400, not retryable)', (t) => {
  const cases: [Partial<ImageGenerationRequest>, RegExp][] = [
    [{ n: 2 }, /one image per request/],
    [{ background: 'transparent' }, /transparent/],
    [{ images: Array.from({ length: 5 }, () => ({ data: png, mediaType: 'image/png', filename: 'x.png' })) }, /at most 4 reference images/],
  ];
  for (const [change, message] of cases) {
    const error = t.throws(() => bflImageOperation.build({ ...request, ...change }, kontext), { instanceOf: UpstreamError }) as UpstreamError;
    t.regex(error.message, message);
    t.like(error, { status: 400, retryable: false });
  }
});

test('follow: submit → poll the polling_url (key to BFL\'s regional host) → poll again while Pending → the sample without a key', (t) => {
  const submitted = followTask(json({ id: 'f6a0c5a2-7d3e-4f2b-9a77-1e0c8c3d2b11', polling_url: 'https://api.us1.bfl.ai/v1/get_result?id=f6a0c5a2-7d3e-4f2b-9a77-1e0c8c3d2b11' }), request, target);
  t.deepEqual(submitted, {
    request: { url: 'https://api.us1.bfl.ai/v1/get_result?id=f6a0c5a2-7d3e-4f2b-9a77-1e0c8c3d2b11', method: 'GET', headers: { 'x-key': 'bfl-key', accept: 'application/json' } },
    delayMs: 500,
  });
  const pending = followTask(json({ id: 'f6a0c5a2', status: 'Pending', result: null, progress: 0.4 }, 'https://api.us1.bfl.ai/v1/get_result?id=f6a0c5a2'), request, target);
  t.is(pending?.request.url, 'https://api.us1.bfl.ai/v1/get_result?id=f6a0c5a2');
  t.is(pending?.delayMs, 500);
  const sample = 'https://delivery-eu1.bfl.ai/results/2b/7d1b7e/sample.jpeg?se=2025-06-01T12%3A10%3A00Z&sp=r&sv=2024-11-04&sr=b&rsct=image/jpeg&sig=abc';
  const ready = followTask(json({ id: 'f6a0c5a2', status: 'Ready', result: { sample, prompt: 'ein fantastisches bild', seed: 42, start_time: 1748779800.1, end_time: 1748779805.6, duration: 5.5 } }), request, target);
  t.deepEqual(ready, { request: { url: sample, method: 'GET', headers: { accept: 'image/*' } }, delayMs: 0 });
  // The fetched image ends the chain; parse reads it.
  const image: MediaHttpResponse = { status: 200, headers: { 'content-type': 'image/png' }, body: png };
  t.is(followTask(image, request, target), undefined);
  t.deepEqual(parseSample(image, request), [{ data: png, mediaType: 'image/png' }]);
});

test('follow: a polling URL on another domain gets no key; a submit without polling_url polls get_result on the base', (t) => {
  t.deepEqual(followTask(json({ id: 'x', polling_url: 'https://elsewhere.example/v1/get_result?id=x' }), request, target)?.request.headers, { accept: 'application/json' });
  t.is(followTask(json({ id: 'abc' }), request, target)?.request.url, 'https://api.bfl.ai/v1/get_result?id=abc');
  const local: MediaTarget = { ...target, baseUrl: 'http://10.0.0.1:8080/bfl' };
  t.deepEqual(followTask(json({ id: 'x', polling_url: 'http://10.9.0.1:8080/v1/get_result?id=x' }), request, local)?.request.headers, { accept: 'application/json' }, 'addresses are not domains');
  t.like(followTask(json({ id: 'x', polling_url: 'http://10.0.0.1:8080/bfl/v1/get_result?id=x' }), request, local)?.request.headers, { 'x-key': 'bfl-key' }, 'the same origin');
});

test('follow: moderation is a 400 that is not retried; Error and a lost task are retryable 502s', (t) => {
  const moderated = t.throws(() => followTask(json({ id: 'your-task-id', status: 'Request Moderated', result: null, details: { 'Moderation Reasons': ['Derivative Works Filter'] } }), request, target)) as UpstreamError;
  t.like(moderated, { status: 400, retryable: false, upstreamType: 'request_moderated' });
  t.is(moderated.message, 'FLUX content moderation refused the prompt or reference image (Request Moderated): {"Moderation Reasons":["Derivative Works Filter"]}');
  const content = t.throws(() => followTask(json({ id: 'your-task-id', status: 'Content Moderated', result: null }), request, target)) as UpstreamError;
  t.like(content, { status: 400, retryable: false, upstreamType: 'content_moderated', message: 'FLUX content moderation refused the generated image (Content Moderated)' });
  t.like(t.throws(() => followTask(json({ id: 'x', status: 'Error', result: null }), request, target)) as UpstreamError, { status: 502, retryable: true, upstreamType: 'generation_failed' });
  t.like(t.throws(() => followTask(json({ id: 'x', status: 'Failed' }), request, target)) as UpstreamError, { status: 502, retryable: true });
  t.like(t.throws(() => followTask(json({ id: 'x', status: 'Task not found' }), request, target)) as UpstreamError, { status: 502, retryable: true, upstreamType: 'task_not_found' });
  t.like(t.throws(() => followTask(json({ id: 'x', status: 'Ready', result: {} }), request, target)) as UpstreamError, { upstreamType: 'invalid_response' });
});

test('errors: FastAPI detail bodies, 402 credits, 429 retryable, 403 key refused; the storage host\'s XML 403 is an expired sample', (t) => {
  t.like(parseBflError(422, JSON.stringify({ detail: [{ type: 'less_than_equal', loc: ['body', 'width'], msg: 'Input should be less than or equal to 1440', input: 2048 }] })), {
    status: 422,
    retryable: false,
    message: 'FLUX: width: Input should be less than or equal to 1440',
  });
  t.like(parseBflError(402, JSON.stringify({ detail: 'Insufficient credits' })), { status: 402, retryable: false, upstreamType: 'insufficient_credits' });
  t.like(parseBflError(429, JSON.stringify({ detail: 'You have exceeded the number of active tasks (24).' })), { status: 429, retryable: true, upstreamType: 'rate_limited' });
  t.like(parseBflError(403, JSON.stringify({ detail: 'Not authenticated' })), { status: 403, retryable: false, message: 'FLUX: Not authenticated' });
  t.like(parseBflError(503, JSON.stringify({ detail: 'Service Unavailable' })), { status: 503, retryable: true });
  const xml = '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>Signature not valid in the specified time frame</Message></Error>';
  t.like(parseBflError(403, xml), { status: 502, retryable: false, upstreamType: 'result_expired' });
  t.like(parseBflError(502, '<html>bad gateway</html>'), { status: 502, retryable: true });
});
