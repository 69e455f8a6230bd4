// OpenAI's streamed images (wire-formats.md §4; OpenAI's image streaming events reference): the
// request asks `stream: true` and `partial_images`, the answer's `…partial_image` and
// `…completed` events become the model's preview and image events, an `error` event is the
// upstream's failure, and a stream cut before any completed image is incomplete. The transport
// reads such a stream from a real loopback socket, handing each event on as it arrives.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { ImageGenerationRequest, ImageStreamEvent } from '../../src/model/media.js';
import { openaiMediaAdapter } from '../../src/vendors/openai/media.js';
import { imageStreamParser } from '../../src/vendors/openai/image-stream.js';
import { createDispatcher, type Upstream } from '../../src/vendors/shared/http-transport.js';
import { streamMediaOperation } from '../../src/vendors/shared/media-transport.js';
import { UpstreamError } from '../../src/vendors/types.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);

const request: ImageGenerationRequest = { prompt: 'a river of feathers', n: 1, size: '1024x1024', quality: 'low', outputFormat: 'png', images: [], partialImages: 2 };
const target = { model: 'gpt-image-1', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-test' };

const partial = (index: number) => ({
  type: 'image_generation.partial_image',
  b64_json: png.toString('base64'),
  background: 'opaque',
  created_at: 1767225600,
  output_format: 'png',
  partial_image_index: index,
  quality: 'low',
  size: '1024x1024',
});
const completed = {
  type: 'image_generation.completed',
  b64_json: png.toString('base64'),
  background: 'opaque',
  created_at: 1767225600,
  output_format: 'png',
  quality: 'low',
  size: '1024x1024',
  usage: { input_tokens: 12, input_tokens_details: { text_tokens: 12, image_tokens: 0 }, output_tokens: 272, total_tokens: 284 },
};
const sse = (body: { type: string } & Record<string, unknown>) => ({ event: body.type, data: JSON.stringify(body) });

test('a streamed generation asks stream and partial_images on the JSON body', (t) => {
  const built = openaiMediaAdapter.streamImages!.build(request, target);
  t.is(built.url, 'https://api.openai.com/v1/images/generations');
  t.deepEqual(built.body, { json: { model: 'gpt-image-1', prompt: 'a river of feathers', n: 1, size: '1024x1024', quality: 'low', stream: true, partial_images: 2 } });
  t.is(built.headers.authorization, 'Bearer sk-test');
});

test('a streamed edit sends stream and partial_images as multipart strings, after the image', async (t) => {
  const edit = { ...request, partialImages: 1, images: [{ data: png, mediaType: 'image/png', filename: 'river.png' }] };
  const built = openaiMediaAdapter.streamImageEdits!.build(edit, target);
  t.is(built.url, 'https://api.openai.com/v1/images/edits');
  const form = (built.body as { form: FormData }).form;
  t.deepEqual(
    [...form.entries()].map(([name, value]) => [name, typeof value === 'string' ? value : 'file']),
    [
      ['image', 'file'],
      ['model', 'gpt-image-1'],
      ['prompt', 'a river of feathers'],
      ['n', '1'],
      ['size', '1024x1024'],
      ['quality', 'low'],
      ['stream', 'true'],
      ['partial_images', '1'],
    ],
  );
});

test('partial_image and completed events become previews and the image, with the usage', (t) => {
  const parser = imageStreamParser('image_generation', request);
  const events = [sse(partial(0)), sse(partial(1)), sse(completed)].flatMap((event) => parser.push(event));
  parser.end();
  t.deepEqual(
    events.map((event) => (event.type === 'partial' ? ['partial', event.index, event.image.mediaType] : ['completed', event.image.mediaType])),
    [
      ['partial', 0, 'image/png'],
      ['partial', 1, 'image/png'],
      ['completed', 'image/png'],
    ],
  );
  const last = events[2] as Extract<ImageStreamEvent, { type: 'completed' }>;
  t.deepEqual(last.usage, { inputTokens: 12, inputTextTokens: 12, inputImageTokens: 0, outputTokens: 272 });
  t.deepEqual(last.facts, { size: '1024x1024', quality: 'low', background: 'opaque', outputFormat: 'png' });
  t.deepEqual(Buffer.from(last.image.data), png);
});

test('the bytes decide the media type; an edit reads image_edit events and ignores generation ones', (t) => {
  const parser = imageStreamParser('image_edit', { ...request, outputFormat: 'webp' });
  t.deepEqual(parser.push(sse(completed)), [], 'another kind of event is not this stream\'s');
  const [event] = parser.push(sse({ ...completed, type: 'image_edit.completed', b64_json: webp.toString('base64'), output_format: 'webp' }));
  t.is(event!.image.mediaType, 'image/webp');
  t.notThrows(() => parser.end());
});

test('an error event is the upstream failure; a stream without a completed image is incomplete', (t) => {
  const failing = imageStreamParser('image_generation', request);
  const error = t.throws(() => failing.push({ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'server_error', message: 'The server had an error', code: null } }) }));
  t.true(error instanceof UpstreamError);
  t.like(error, { message: 'The server had an error', retryable: true, upstreamType: 'server_error' });

  const cut = imageStreamParser('image_generation', request);
  cut.push(sse(partial(0)));
  t.like(t.throws(() => cut.end()), { upstreamType: 'incomplete_stream', message: 'the upstream stream ended before the response was complete' });
  t.like(t.throws(() => imageStreamParser('image_generation', request).end()), { message: 'the upstream stream ended before any response data' });
  t.like(t.throws(() => imageStreamParser('image_generation', request).push({ data: JSON.stringify({ ...completed, b64_json: '' }) })), { upstreamType: 'invalid_response' });
});

test('the transport hands each event on as its bytes arrive, and a refusal is the adapter\'s error', async (t) => {
  let releaseRest!: () => void;
  const rest = new Promise<void>((resolve) => (releaseRest = resolve));
  const server = createServer(async (incoming, response) => {
    for await (const _chunk of incoming) void _chunk;
    if (incoming.url === '/v1/images/generations' && incoming.headers.accept === 'text/event-stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`event: image_generation.partial_image\ndata: ${JSON.stringify(partial(0))}\n\n`);
      await rest;
      response.end(`event: image_generation.completed\ndata: ${JSON.stringify(completed)}\n\n`);
      return;
    }
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
    response.end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const dispatcher = createDispatcher();
  t.teardown(() => dispatcher.close());
  const upstream: Upstream = { name: 'openai', kind: 'openai', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, timeoutMs: 10_000, dispatcher, settings: {}, secrets: {} };
  const seen: string[] = [];
  await streamMediaOperation(upstream, openaiMediaAdapter.streamImages!, request, { ...target, baseUrl: upstream.baseUrl }, AbortSignal.timeout(10_000), openaiMediaAdapter.parseError, (event) => {
    seen.push(event.type);
    // The preview came before the server sent the rest: it was handed on as it arrived.
    if (event.type === 'partial') releaseRest();
  });
  t.deepEqual(seen, ['partial', 'completed']);

  const refused = await t.throwsAsync(
    streamMediaOperation(upstream, openaiMediaAdapter.streamImageEdits!, { ...request, images: [{ data: png, mediaType: 'image/png', filename: 'a.png' }] }, { ...target, baseUrl: upstream.baseUrl }, AbortSignal.timeout(10_000), openaiMediaAdapter.parseError, () => {}),
  );
  t.like(refused, { status: 429, retryable: true, retryAfterMs: 2000, message: 'Rate limit reached' });
});
