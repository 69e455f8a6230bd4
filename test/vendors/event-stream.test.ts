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
  response.writeHead(200, { 'content-type': 'text/event-stream' });
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
  return { name: 'local', kind: 'openai', adapter: openaiChatAdapter, baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 5_000, dispatcher: createDispatcher() };
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
