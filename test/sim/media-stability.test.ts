// Stability AI's fast upscaler on the simulator, with plain fetch as Stability's clients use:
// multipart in, a 4x PNG out as raw bytes (Accept: image/*) or JSON (Accept: application/json).
import test, { type ExecutionContext } from 'ava';
import { patternPng, pngChunks, readPngSize } from '../../src/sim/media/png.js';
import { startSimulator } from '../../src/sim/server.js';
import { jpegSkeleton, postForm } from './media-fixtures.js';

async function simulator(t: ExecutionContext): Promise<string> {
  const started = await startSimulator({ port: 0 });
  t.teardown(() => started.close());
  return `${started.url}/v2beta/stable-image/upscale/fast`;
}

function upscaleForm(image: Buffer, filename = 'in.png', extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('image', new Blob([image]), filename);
  for (const [key, value] of Object.entries(extra)) form.append(key, value);
  return form;
}

const auth = { authorization: 'Bearer sk-stability' };

test('upscale/fast, Accept image/*: the raw PNG at 4x, with finish-reason and seed headers', async (t) => {
  const url = await simulator(t);
  const input = patternPng(64, 48, 'input image');
  const answer = await postForm(url, upscaleForm(input, 'in.png', { output_format: 'png' }), { ...auth, accept: 'image/*' });
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'image/png');
  t.is(answer.headers.get('finish-reason'), 'SUCCESS');
  t.regex(answer.headers.get('seed')!, /^\d+$/);
  t.deepEqual(readPngSize(answer.body), { width: 256, height: 192 });
  t.deepEqual(pngChunks(answer.body).map((chunk) => chunk.type), ['IHDR', 'IDAT', 'IEND']);
  // Deterministic from the input bytes.
  const again = await postForm(url, upscaleForm(input), { ...auth, accept: 'image/*' });
  t.deepEqual(again.body, answer.body);
  t.is(again.headers.get('seed'), answer.headers.get('seed'));
});

test('upscale/fast, Accept application/json: {image, finish_reason, seed}; JPEG input', async (t) => {
  const url = await simulator(t);
  const answer = await postForm(url, upscaleForm(jpegSkeleton(100, 75), 'in.jpg'), { ...auth, accept: 'application/json' });
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'application/json');
  const body = JSON.parse(answer.body.toString());
  t.is(body.finish_reason, 'SUCCESS');
  t.true(Number.isInteger(body.seed));
  t.deepEqual(readPngSize(Buffer.from(body.image, 'base64')), { width: 400, height: 300 });
});

test('upscale/fast errors in Stability shape: missing image, unsupported image, too large, bad output_format, magic filename', async (t) => {
  const url = await simulator(t);
  const check = async (form: FormData, status: number, name: string, pattern: RegExp) => {
    const answer = await postForm(url, form, { ...auth, accept: 'image/*' });
    t.is(answer.status, status);
    const body = JSON.parse(answer.body.toString());
    t.is(body.name, name);
    t.true(typeof body.id === 'string' && Array.isArray(body.errors));
    t.regex(body.errors[0], pattern);
  };
  const noImage = new FormData();
  noImage.append('output_format', 'png');
  await check(noImage, 400, 'bad_request', /image: is required/);
  await check(upscaleForm(Buffer.from('GIF89a......'), 'a.gif'), 400, 'bad_request', /unsupported image/);
  await check(upscaleForm(patternPng(1025, 1024, 'big')), 400, 'bad_request', /image too large/);
  await check(upscaleForm(patternPng(8, 8, 'x'), 'in.png', { output_format: 'gif' }), 400, 'bad_request', /output_format/);
  await check(upscaleForm(patternPng(8, 8, 'x'), 'in[[sim:status=429]].png'), 429, 'rate_limit_exceeded', /rate limit/);
  // 1024x1024 is exactly the largest input (16 megapixels out).
  const largest = await postForm(url, upscaleForm(patternPng(1024, 1024, 'ok')), { ...auth, accept: 'image/*' });
  t.deepEqual(readPngSize(largest.body), { width: 4096, height: 4096 });
});
