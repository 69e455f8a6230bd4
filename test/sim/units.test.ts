import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { parseFaults, stripMagic } from '../../src/sim/faults.js';
import { cacheTtlMs, PrefixCache } from '../../src/sim/prefix-cache.js';
import { ClientWatch, writeStream } from '../../src/sim/sse-writer.js';
import { countTokens, cutToTokens } from '../../src/sim/tokens.js';
import { argumentsForSchema } from '../../src/sim/tool-arguments.js';
import { fillToTokens, splitDeltas } from '../../src/sim/words.js';

test('countTokens: ceil(UTF-8 bytes / 4), at least 1 for non-empty text', (t) => {
  t.is(countTokens(''), 0);
  t.is(countTokens('a'), 1);
  t.is(countTokens('abcd'), 1);
  t.is(countTokens('abcde'), 2);
  t.is(countTokens('привет'), 3); // 12 bytes
  t.is(countTokens('😀😀'), 2); // 8 bytes
});

test('fillToTokens lands on exactly N tokens and never cuts the lead; cutToTokens respects the budget', (t) => {
  for (const lead of ['Simulated answer to "x": ', 'Ответ на "вопрос": ', '']) {
    for (let tokens = 10; tokens <= 200; tokens += 7) t.is(countTokens(fillToTokens(lead, tokens, tokens * 31)), tokens, `${lead} ${tokens}`);
  }
  const lead = 'A lead that is longer than four tokens';
  t.is(fillToTokens(lead, 2, 1), lead);
  for (let tokens = 0; tokens < 12; tokens++) t.true(countTokens(cutToTokens('héllo wörld 😀 and more text here', tokens)) <= tokens);
  const text = fillToTokens('Simulated answer to "hello": ', 40, 7);
  t.is(splitDeltas(text).join(''), text);
  t.true(splitDeltas(text).every((delta) => delta.length <= 16));
});

test('magic strings are parsed from anywhere in the text and stripped from the quote', (t) => {
  const faults = parseFaults('a [[sim:status=503]] b [[sim:delay=5]] [[sim:tokens=7]] [[sim:fail-mid]] [[sim:no-usage]]');
  t.like(faults, { status: 503, delayMs: 5, tokens: 7, failMid: true, noUsage: true, drop: false, usageInChoice: false, ttfbMs: 0 });
  t.is(parseFaults('[[sim:status=200]]').status, undefined);
  t.is(parseFaults('[[sim:status=429]]').retryAfterSeconds, 1);
  t.is(parseFaults('[[sim:status=429]] [[sim:retry-after=3]]').retryAfterSeconds, 3);
  t.is(stripMagic('  Hello [[sim:drop]]  world '), 'Hello world');
});

test('tool arguments: required properties only, simplest value of each type, one item per array', (t) => {
  t.deepEqual(
    argumentsForSchema({
      type: 'object',
      properties: {
        s: { type: 'string' },
        n: { type: 'number' },
        i: { type: 'integer' },
        b: { type: 'boolean' },
        a: { type: 'array', items: { type: 'string' } },
        o: { type: 'object' },
        e: { enum: ['first', 'second'] },
        u: { type: ['null', 'integer'] },
        optional: { type: 'string' },
      },
      required: ['s', 'n', 'i', 'b', 'a', 'o', 'e', 'u'],
    }),
    // The array had no item before the structured-output generator (schema-instance.ts) took
    // over: an item shows clients the item shape, and a forced output tool must answer exactly
    // what a native format gets.
    { s: 'sim', n: 1, i: 1, b: true, a: ['sim'], o: {}, e: 'first', u: 1 },
  );
  t.deepEqual(argumentsForSchema(undefined), {});
});

test('the prefix cache expires 5 minutes after the last use (sliding)', (t) => {
  let now = 1_000_000;
  const cache = new PrefixCache(() => now);
  cache.store('k', 100);
  now += cacheTtlMs - 1;
  t.is(cache.lookup('k'), 100); // refreshed here
  now += cacheTtlMs - 1;
  t.is(cache.lookup('k'), 100);
  now += cacheTtlMs;
  t.is(cache.lookup('k'), 0);
});

test('a stream stops writing and leaves no timer once the client is gone', async (t) => {
  let finished: Promise<void> | undefined;
  let written = 0;
  let writtenAtClose = -1;
  const server = createServer((request, response) => {
    const write = response.write.bind(response) as (chunk: string) => boolean;
    response.write = ((chunk: string) => (written++, write(chunk))) as typeof response.write;
    response.once('close', () => (writtenAtClose = written));
    const watch = new ClientWatch(response);
    const frames = Array.from({ length: 100 }, (_, index) => `data: ${index}\n\n`);
    finished = writeStream(response, watch, { frames, faultAt: 0, errorFrame: '' }, { delayMs: 100, fault: null }, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const controller = new AbortController();
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { signal: controller.signal });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  await finished;
  // The writer stopped at the close instead of writing the remaining frames into a closed socket.
  t.true(writtenAtClose >= 1 && writtenAtClose < 100, `${writtenAtClose} frames before the close`);
  t.is(written, writtenAtClose, 'no frame was written after the client left');
});
