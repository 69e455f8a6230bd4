// The media transport over a real loopback socket: bodies out (JSON, multipart), bodies in,
// non-2xx through parseError with Retry-After, the body cap, aborts and timeouts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import test from 'ava';
import { createDispatcher, retryAfterMs, type Upstream } from '../../src/vendors/shared/http-transport.js';
import { openaiMediaAdapter } from '../../src/vendors/openai/media.js';
import { runMediaOperation, sendMedia } from '../../src/vendors/shared/media-transport.js';
import type { MediaHttpRequest } from '../../src/vendors/media-types.js';
import { errorFromResponse } from '../../src/vendors/shared/upstream-errors.js';
import { UpstreamError } from '../../src/vendors/types.js';
import { multipartBoundary, parseMultipart } from '../../src/sim/media/multipart.js';

const sockets = new Set<Socket>();
/** Called when the server holds a /hang request, or has sent /slow-body's first bytes: the moment to abort. */
const reached = new Map<string, () => void>();

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const server = createServer(async (request, response) => {
  const body = await readAll(request);
  switch (request.url) {
    case '/echo':
      return json(response, 200, { method: request.method, contentType: request.headers['content-type'] ?? null, authorization: request.headers.authorization ?? null, body: body.toString('utf8') });
    case '/form': {
      const boundary = multipartBoundary(request.headers['content-type']);
      if (!boundary) return json(response, 400, { error: { message: `not multipart: ${request.headers['content-type']}` } });
      const parts = parseMultipart(body, boundary).map((part) => ({ name: part.name, filename: part.filename ?? null, contentType: part.contentType ?? null, data: part.data.toString('base64') }));
      return json(response, 200, { parts });
    }
    case '/audio':
      response.writeHead(200, { 'content-type': 'audio/mpeg' });
      return response.end(Buffer.from([0xff, 0xfb, 0x90, 0x00, 1, 2, 3]));
    case '/v1/embeddings':
      return json(response, 200, {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: Buffer.from(new Float32Array([0.5, -2]).buffer).toString('base64') }],
        usage: { prompt_tokens: 3, total_tokens: 3 },
        echo: JSON.parse(body.toString('utf8')),
      });
    case '/429-ms':
      return json(response, 429, { error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after-ms': '1500', 'retry-after': '9' });
    case '/429-seconds':
      return json(response, 429, { error: { message: 'slow down', type: 'rate_limit_error', param: null, code: null } }, { 'retry-after': '7' });
    case '/400':
      return json(response, 400, { error: { message: 'bad size', type: 'invalid_request_error', param: 'size', code: null } });
    case '/503-huge':
      response.writeHead(503, { 'content-type': 'text/plain' });
      return response.end('x'.repeat(1024 * 1024));
    case '/big-declared':
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '4096' });
      return response.end(Buffer.alloc(4096));
    case '/big-chunked':
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let index = 0; index < 8; index++) response.write(Buffer.alloc(512));
      return response.end();
    case '/exact-cap':
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      return response.end(Buffer.alloc(1024, 7));
    case '/hang':
      reached.get('/hang')?.();
      return; // never answers
    case '/slow-body':
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write(Buffer.alloc(10), () => reached.get('/slow-body')?.());
      return; // never finishes
    case '/drop':
      return request.socket.destroy();
    default:
      return json(response, 404, { error: { message: `no ${request.url}` } });
  }
});
server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});

let baseUrl = '';
const dispatcher = createDispatcher();

test.before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after.always(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dispatcher.destroy();
});

function upstream(timeoutMs = 5_000): Upstream {
  return { name: 'media-test', kind: 'openai', baseUrl, timeoutMs, dispatcher, settings: {}, secrets: {} };
}

function post(path: string, body?: MediaHttpRequest['body'], headers: Record<string, string> = {}): MediaHttpRequest {
  return { url: `${baseUrl}${path}`, method: 'POST', headers, ...(body ? { body } : {}) };
}

const parseError = errorFromResponse;
const never = () => new AbortController().signal;

test('a JSON body is serialized with its content type; the 2xx body comes back as bytes with the headers', async (t) => {
  const response = await sendMedia(upstream(), post('/echo', { json: { model: 'm', input: ['é'] } }, { authorization: 'Bearer k' }), never(), parseError);
  t.is(response.status, 200);
  t.is(response.url, `${baseUrl}/echo`, 'the URL that answered (an asynchronous operation polls it again)');
  t.true(response.body instanceof Uint8Array);
  t.regex(String(response.headers['content-type']), /application\/json/);
  t.deepEqual(JSON.parse(Buffer.from(response.body).toString('utf8')), { method: 'POST', contentType: 'application/json', authorization: 'Bearer k', body: '{"model":"m","input":["é"]}' });
});

test('a FormData body goes out as multipart with each part\'s filename and type; a content-type given for it is dropped', async (t) => {
  const form = new FormData();
  form.append('image[]', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'a.png');
  form.append('image[]', new Blob([new Uint8Array([0xff, 0xd8, 0xff])], { type: 'image/jpeg' }), 'b.jpg');
  form.append('prompt', 'a hat');
  const response = await sendMedia(upstream(), post('/form', { form }, { 'content-type': 'application/json' }), never(), parseError);
  t.deepEqual(JSON.parse(Buffer.from(response.body).toString('utf8')), {
    parts: [
      { name: 'image[]', filename: 'a.png', contentType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64') },
      { name: 'image[]', filename: 'b.jpg', contentType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff]).toString('base64') },
      { name: 'prompt', filename: null, contentType: null, data: Buffer.from('a hat').toString('base64') },
    ],
  });
});

test('binary bodies are read whole, up to and including the cap', async (t) => {
  const audio = await sendMedia(upstream(), post('/audio'), never(), parseError);
  t.deepEqual([...audio.body], [0xff, 0xfb, 0x90, 0x00, 1, 2, 3]);
  const exact = await sendMedia(upstream(), post('/exact-cap'), never(), parseError, { maxBodyBytes: 1024 });
  t.is(exact.body.length, 1024);
  t.true(exact.body.every((byte) => byte === 7));
});

test('non-2xx goes through parseError with retry-after-ms (preferred) or retry-after seconds', async (t) => {
  const milliseconds = await t.throwsAsync(sendMedia(upstream(), post('/429-ms'), never(), parseError), { instanceOf: UpstreamError });
  t.like(milliseconds, { status: 429, retryable: true, retryAfterMs: 1500, message: 'slow down', upstreamType: 'rate_limit_error' });
  const seconds = await t.throwsAsync(sendMedia(upstream(), post('/429-seconds'), never(), parseError), { instanceOf: UpstreamError });
  t.like(seconds, { status: 429, retryAfterMs: 7000 });
  const bad = (await t.throwsAsync(sendMedia(upstream(), post('/400'), never(), parseError), { instanceOf: UpstreamError })) as UpstreamError;
  t.like(bad, { status: 400, retryable: false, message: 'bad size' });
  t.is(bad.retryAfterMs, undefined);
});

test('an error body is read only so far (a message, not a megabyte)', async (t) => {
  const seen: string[] = [];
  const collect = (status: number, text: string) => (seen.push(text), errorFromResponse(status, text));
  const error = await t.throwsAsync(sendMedia(upstream(), post('/503-huge'), never(), collect), { instanceOf: UpstreamError });
  t.like(error, { status: 503, retryable: true });
  t.deepEqual(seen.map((text) => text.length), [64 * 1024]);
});

test('a body over the cap is refused, whether its length was declared or not', async (t) => {
  for (const path of ['/big-declared', '/big-chunked']) {
    const error = await t.throwsAsync(sendMedia(upstream(), post(path), never(), parseError, { maxBodyBytes: 1024 }), { instanceOf: UpstreamError });
    t.like(error, { status: 502, retryable: false, upstreamType: 'response_too_large' }, path);
  }
});

test('no headers within the upstream timeout, or a body that stalls: 504 timeout, retryable', async (t) => {
  // Concurrently: undici's timers tick about once a second.
  const [headers, body] = await Promise.all(
    ['/hang', '/slow-body'].map((path) => t.throwsAsync(sendMedia(upstream(150), post(path), never(), parseError), { instanceOf: UpstreamError })),
  );
  t.like(headers, { status: 504, retryable: true, upstreamType: 'timeout' });
  t.like(body, { status: 504, retryable: true, upstreamType: 'timeout' });
});

test('the caller\'s AbortSignal.timeout is a timeout too', async (t) => {
  const error = await t.throwsAsync(sendMedia(upstream(), post('/hang'), AbortSignal.timeout(100), parseError), { instanceOf: UpstreamError });
  t.like(error, { status: 504, retryable: true, upstreamType: 'timeout' });
});

/** What the promise rejected with (a DOMException is not an Error to ava's throwsAsync). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

test('aborting passes the AbortError through, before the headers and while reading the body', async (t) => {
  for (const path of ['/hang', '/slow-body']) {
    // Aborted once the server holds the request (or has sent the first bytes of the body): the
    // upstream never finishes either, so the answer can only be the abort.
    const controller = new AbortController();
    reached.set(path, () => controller.abort());
    const error = await rejection(sendMedia(upstream(), post(path), controller.signal, parseError));
    t.false(error instanceof UpstreamError, path);
    t.is((error as Error).name, 'AbortError', path);
  }
  const aborted = new AbortController();
  aborted.abort();
  const early = await rejection(sendMedia(upstream(), post('/echo'), aborted.signal, parseError));
  t.is((early as Error).name, 'AbortError');
});

test('a dropped connection or a refused one: status 0, retryable; a refused one says so (the request never left)', async (t) => {
  const dropped = await t.throwsAsync(sendMedia(upstream(), post('/drop'), never(), parseError), { instanceOf: UpstreamError });
  t.like(dropped, { status: 0, retryable: true, upstreamType: 'connection_error' });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await t.throwsAsync(sendMedia(upstream(), { url: `http://127.0.0.1:${port}/x`, method: 'POST', headers: {} }, never(), parseError), { instanceOf: UpstreamError });
  t.like(refused, { status: 0, retryable: true, upstreamType: 'connection_refused' });
  t.regex(refused!.message, /media-test/);
});

test('runMediaOperation builds, sends and parses', async (t) => {
  const embed = openaiMediaAdapter.embed!;
  const result = await runMediaOperation(upstream(), embed, { input: ['hello'] }, { model: 'e', baseUrl: `${baseUrl}/v1`, apiKey: 'k' }, never(), openaiMediaAdapter.parseError);
  t.deepEqual(result, { vectors: [[0.5, -2]], inputTokens: 3 });
});

test('runMediaOperation: a non-2xx never reaches the parser', async (t) => {
  let parsed = false;
  const operation = { build: () => post('/400', { json: {} }), parse: () => ((parsed = true), 'x') };
  const error = await t.throwsAsync(runMediaOperation(upstream(), operation, {}, { model: 'm', baseUrl }, never(), openaiMediaAdapter.parseError), { instanceOf: UpstreamError });
  t.is(error?.status, 400);
  t.false(parsed);
});

test('retryAfterMs is whole milliseconds, rounded up: it becomes a stored time (a job next_run_at, a bigint on PostgreSQL)', (t) => {
  t.is(retryAfterMs({ 'retry-after-ms': '12.5' }), 13);
  t.is(retryAfterMs({ 'retry-after': '0.2505' }), 251);
  t.is(retryAfterMs({ 'retry-after': '2' }), 2000);
  t.true(Number.isSafeInteger(retryAfterMs({ 'retry-after': new Date(Date.now() + 5000).toUTCString() })));
});
