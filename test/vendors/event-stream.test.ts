// The chat transport's event reader over a real loopback socket: events arrive as their bytes
// do (split anywhere), an error thrown by the consumer stops the read and tears the upstream
// request down (and is not turned into a connection error), a cut connection is one.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { openaiChatAdapter } from '../../src/vendors/openai/chat.js';
import { createDispatcher, openEventStream, type Upstream } from '../../src/vendors/shared/http-transport.js';
import { UpstreamError, type SseEvent } from '../../src/vendors/types.js';

/** Per request path: resolves when the upstream's response closes, with whether it ended early (before [DONE]). */
const closes = new Map<string, (early: boolean) => void>();
const closeOf = (path: string) => new Promise<boolean>((resolve) => closes.set(path, resolve));

// The upstream's pacing below (timers between writes) is what is under test, not a wait of the test.
const server = createServer((request, response: ServerResponse) => {
  request.resume();
  if (request.url === '/refused') {
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1500' });
    response.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error' } }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  if (request.url === '/all-at-once') {
    // The head, every event and the end in one write: they can arrive in the read that
    // brings the head, before the caller has the reader. A byte order mark opens the body.
    response.end(`\uFEFF${Array.from({ length: 5 }, (_, n) => `data: {"n":${n}}\n\n`).join('')}data: [DONE]\n\n`);
    return;
  }
  if (request.url === '/cut') {
    response.write('data: {"n":1}\n\n');
    setTimeout(() => response.socket?.destroy(), 20); // the cut comes after the first event was read
    return;
  }
  // Ten events, each split across two writes, then a long pause before the end.
  let n = 0;
  const timer = setInterval(() => {
    if (n === 10) {
      clearInterval(timer);
      setTimeout(() => response.end('data: [DONE]\n\n'), 300); // the pause a torn-down request never sees the end of
      return;
    }
    const text = `event: chunk\ndata: {"n":${n++}}\n\n`;
    response.write(text.slice(0, 7));
    response.write(text.slice(7));
  }, 5);
  response.on('close', () => {
    closes.get(request.url ?? '')?.(!response.writableFinished);
    clearInterval(timer);
  });
});

test.before(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve())));
test.after.always(() => server.close());

function upstream(): Upstream {
  const { port } = server.address() as AddressInfo;
  return { name: 'local', kind: 'openai', adapter: openaiChatAdapter, baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 5_000, dispatcher: createDispatcher(), settings: {}, secrets: {} };
}

const at = (path: string) => ({ url: `${upstream().baseUrl}${path}`, headers: {}, body: {} });

test('every event reaches the consumer, in order, with its event name, whatever the byte boundaries', async (t) => {
  const read = await openEventStream(upstream(), openaiChatAdapter, at('/events'), new AbortController().signal);
  const events: SseEvent[] = [];
  await read((event) => events.push(event));
  t.is(events.length, 11);
  t.deepEqual(events[0], { event: 'chunk', data: '{"n":0}' });
  t.deepEqual(events[9], { event: 'chunk', data: '{"n":9}' });
  t.deepEqual(events[10], { data: '[DONE]' });
});

test('what the consumer throws ends the read with that error, and the upstream request is torn down', async (t) => {
  const closed = closeOf('/events?consumer-throws');
  const read = await openEventStream(upstream(), openaiChatAdapter, at('/events?consumer-throws'), new AbortController().signal);
  let seen = 0;
  const error = await t.throwsAsync(
    read(() => {
      if (++seen === 3) throw new TypeError('a bug in the consumer');
    }),
  );
  t.true(error instanceof TypeError, 'not turned into an UpstreamError');
  t.is(seen, 3, 'no event after the throw');
  t.true(await closed, 'the upstream saw its request closed before the end');
});

test('a connection cut mid-stream is an UpstreamError (connection_error), after the events that came', async (t) => {
  const read = await openEventStream(upstream(), openaiChatAdapter, at('/cut'), new AbortController().signal);
  const events: SseEvent[] = [];
  const error = await t.throwsAsync(read((event) => events.push(event)));
  t.true(error instanceof UpstreamError);
  t.is((error as UpstreamError).upstreamType, 'connection_error');
  t.is(events.length, 1);
});

test('events that come with the head wait for the reader, and a byte order mark is not part of the first', async (t) => {
  const read = await openEventStream(upstream(), openaiChatAdapter, at('/all-at-once'), new AbortController().signal);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the whole body has arrived by now
  const events: SseEvent[] = [];
  const order: string[] = [];
  await read((event) => {
    events.push(event);
    // What a response write does: Node's http sends corked bytes on the next tick. The read
    // must end after it, or the caller's end-of-stream work (the settle) holds those bytes back.
    if (event.data === '[DONE]') process.nextTick(() => order.push('written'));
  });
  order.push('read ended');
  t.deepEqual(
    events.map((event) => event.data),
    ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '[DONE]'],
  );
  t.deepEqual(order, ['written', 'read ended']);
});

test("a non-2xx answer is the adapter's UpstreamError, with the upstream's retry-after", async (t) => {
  const error = await t.throwsAsync(openEventStream(upstream(), openaiChatAdapter, at('/refused'), new AbortController().signal));
  t.true(error instanceof UpstreamError);
  t.is((error as UpstreamError).status, 429);
  t.is((error as UpstreamError).retryAfterMs, 1500);
  t.regex(error!.message, /slow down/);
});

test("aborting the signal mid-stream tears the upstream request down and rejects the read", async (t) => {
  const closed = closeOf('/events?aborted');
  const abort = new AbortController();
  const read = await openEventStream(upstream(), openaiChatAdapter, at('/events?aborted'), abort.signal);
  let seen = 0;
  const error = await t.throwsAsync(
    read(() => {
      if (++seen === 2) abort.abort(new Error('client gone'));
    }),
  );
  t.true(error instanceof UpstreamError);
  t.is((error as UpstreamError).upstreamType, 'connection_error');
  t.regex(error!.message, /client gone/);
  t.true(await closed, 'the upstream saw its request closed before the end');
  t.is(seen, 2, 'no event after the abort');
});

test('a signal aborted before the request leaves sends nothing upstream', async (t) => {
  const abort = new AbortController();
  abort.abort(new Error('client gone'));
  let sent = false;
  server.once('request', () => (sent = true));
  await t.throwsAsync(openEventStream(upstream(), openaiChatAdapter, at('/events?never'), abort.signal));
  await new Promise((resolve) => setImmediate(resolve));
  t.false(sent);
});
