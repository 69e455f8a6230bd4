// The cabinet's SSE parser (web/src/sse.ts), fed as a network delivers: events split across
// chunks, several in one chunk, CRLF line ends, comments, multi-line data, no final blank line.
import test from 'ava';
import { readEvents, SseParser } from '../../web/src/sse.js';

test('events are completed by a blank line whatever the chunking', (t) => {
  const parser = new SseParser();
  t.deepEqual(parser.push('data: {"a":'), []);
  t.deepEqual(parser.push('1}\n'), []);
  t.deepEqual(parser.push('\ndata: two\n\ndata: thr'), [
    { event: undefined, data: '{"a":1}' },
    { event: undefined, data: 'two' },
  ]);
  t.deepEqual(parser.push('ee\n\n'), [{ event: undefined, data: 'three' }]);
});

test('CRLF and CR line ends, comments, event names, multi-line data, a field without a space', (t) => {
  const parser = new SseParser();
  const events = parser.push(': keep-alive\r\n\r\nevent: ping\r\ndata: a\r\ndata:b\r\n\r\ndata: c\rdata: d\r\r');
  t.deepEqual(events, [
    { event: 'ping', data: 'a\nb' },
    { event: undefined, data: 'c\nd' },
  ]);
});

test('a stream that ends without its blank line still gives its last event; an event without data gives none', async (t) => {
  const encoder = new TextEncoder();
  const pieces = ['data: one\n\n', 'event: x\n\n', 'data: [DO', 'NE]'];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  const seen: string[] = [];
  for await (const event of readEvents(body)) seen.push(event.data);
  t.deepEqual(seen, ['one', '[DONE]']);
});

test('a multi-byte character split between chunks is decoded whole', async (t) => {
  const bytes = new TextEncoder().encode('data: привет\n\n');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, 8)); // cuts inside "п"
      controller.enqueue(bytes.slice(8));
      controller.close();
    },
  });
  const seen: string[] = [];
  for await (const event of readEvents(body)) seen.push(event.data);
  t.deepEqual(seen, ['привет']);
});
