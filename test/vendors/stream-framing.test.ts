// How a streamed answer is cut into events (src/vendors/shared/stream-framing.ts): the bytes of
// a chunk may end anywhere, inside a line or inside a UTF-8 character.
import test from 'ava';
import { createFramer } from '../../src/vendors/shared/stream-framing.js';
import type { SseEvent } from '../../src/vendors/types.js';

function frame(framing: 'sse' | 'ndjson' | undefined, chunks: readonly Buffer[]): SseEvent[] {
  const events: SseEvent[] = [];
  const framer = createFramer(framing, (event) => events.push(event));
  for (const chunk of chunks) framer.feed(chunk);
  framer.end();
  return events;
}

/** The bytes cut into pieces of `size` (1 cuts inside every multi-byte character). */
const pieces = (text: string, size: number) => {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
};

test('JSON lines: one event per line, blank lines skipped, a last line without its newline kept', (t) => {
  const body = '{"result":{"text":"При"}}\n\n{"result":{"text":"Привет"}}\r\n{"result":{"done":true}}';
  const expected = [{ data: '{"result":{"text":"При"}}' }, { data: '{"result":{"text":"Привет"}}' }, { data: '{"result":{"done":true}}' }];
  for (const size of [1, 3, 7, 1000]) t.deepEqual(frame('ndjson', pieces(body, size)), expected, `chunks of ${size} bytes`);
});

test('server-sent events (the default): named and unnamed events, a leading byte order mark dropped', (t) => {
  const body = '\uFEFFevent: message_start\ndata: {"a":1}\n\ndata: {"b":"ё"}\n\n';
  const expected = [{ event: 'message_start', data: '{"a":1}' }, { data: '{"b":"ё"}' }];
  for (const size of [1, 5, 1000]) t.deepEqual(frame(undefined, pieces(body, size)), expected, `chunks of ${size} bytes`);
  t.deepEqual(frame('sse', [Buffer.from(body)]), expected);
});
