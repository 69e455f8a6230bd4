import Anthropic from '@anthropic-ai/sdk';
import test from 'ava';
import OpenAI from 'openai';
import { parseSse, postRaw, startTestSimulator } from './simulator.js';

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'chat', messages: [{ role: 'user', content }], ...extra });
const messages = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'chat', max_tokens: 1024, messages: [{ role: 'user', content }], ...extra });

for (const status of [429, 500, 503, 529]) {
  test(`[[sim:status=${status}]] fails before any byte, in each protocol's error shape`, async (t) => {
    const { url, openai, anthropic } = await startTestSimulator(t);
    const openaiRaw = await postRaw(`${url}/v1/chat/completions`, chat(`hi [[sim:status=${status}]]`, { stream: true }));
    t.is(openaiRaw.status, status);
    t.is(openaiRaw.headers.get('content-type'), 'application/json');
    const openaiError = JSON.parse(openaiRaw.text).error;
    t.deepEqual(Object.keys(openaiError).sort(), ['code', 'message', 'param', 'type']);
    t.is(openaiRaw.headers.get('retry-after'), status === 429 ? '1' : null);
    const anthropicRaw = await postRaw(`${url}/v1/messages`, messages(`hi [[sim:status=${status}]]`, { stream: true }));
    t.is(anthropicRaw.status, status);
    const expectedType = { 429: 'rate_limit_error', 500: 'api_error', 503: 'api_error', 529: 'overloaded_error' }[status];
    t.like(JSON.parse(anthropicRaw.text), { type: 'error', error: { type: expectedType } });
    // The SDKs map them to their classes.
    const openaiFailure = await t.throwsAsync(openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: `x [[sim:status=${status}]]` }] }));
    t.is((openaiFailure as InstanceType<typeof OpenAI.APIError>).status, status);
    const anthropicFailure = await t.throwsAsync(anthropic.messages.create({ model: 'chat', max_tokens: 10, messages: [{ role: 'user', content: `x [[sim:status=${status}]]` }] }));
    t.is((anthropicFailure as InstanceType<typeof Anthropic.APIError>).status, status);
  });
}

test('[[sim:fail-mid]]: half the chunks, then an in-stream error event; non-stream: 500', async (t) => {
  const { url, openai, anthropic } = await startTestSimulator(t);
  const openaiRaw = await postRaw(`${url}/v1/chat/completions`, chat('hi [[sim:fail-mid]]', { stream: true }));
  t.is(openaiRaw.status, 200);
  const openaiEvents = parseSse(openaiRaw.text);
  const last = JSON.parse(openaiEvents.at(-1)!.data);
  t.like(last, { error: { type: 'server_error' } });
  const contentChunks = openaiEvents.slice(0, -1).filter((event) => JSON.parse(event.data).choices[0].delta.content);
  t.true(contentChunks.length >= 4 && !openaiRaw.text.includes('[DONE]'));
  await t.throwsAsync(
    (async () => {
      for await (const _chunk of await openai.chat.completions.create({ ...chat('hi [[sim:fail-mid]]'), stream: true } as OpenAI.ChatCompletionCreateParamsStreaming));
    })(),
    { instanceOf: OpenAI.APIError },
  );
  await t.throwsAsync(openai.chat.completions.create(chat('hi [[sim:fail-mid]]') as OpenAI.ChatCompletionCreateParamsNonStreaming), { instanceOf: OpenAI.InternalServerError });

  const anthropicEvents = parseSse((await postRaw(`${url}/v1/messages`, messages('hi [[sim:fail-mid]]', { stream: true }))).text);
  t.is(anthropicEvents.at(-1)!.event, 'error');
  t.like(JSON.parse(anthropicEvents.at(-1)!.data), { type: 'error', error: { type: 'overloaded_error' } });
  t.false(anthropicEvents.some((event) => event.event === 'message_stop'));
  const failure = await t.throwsAsync(anthropic.messages.stream(messages('hi [[sim:fail-mid]]') as Anthropic.MessageCreateParams).finalMessage());
  t.regex(String(failure?.message), /Overloaded/);
});

test('[[sim:drop]]: the connection is cut after half the chunks (stream) or at once (non-stream)', async (t) => {
  const { url } = await startTestSimulator(t);
  for (const [path, body] of [
    ['/v1/chat/completions', chat('hi [[sim:drop]]', { stream: true })],
    ['/v1/messages', messages('hi [[sim:drop]]', { stream: true })],
  ] as const) {
    const result = await postRaw(`${url}${path}`, body);
    t.is(result.status, 200);
    t.truthy(result.bodyError, `${path} ended cleanly`);
    t.true(result.text.includes('Simulated'));
    t.false(result.text.includes('[DONE]') || result.text.includes('message_stop'));
  }
  await t.throwsAsync(postRaw(`${url}/v1/chat/completions`, chat('hi [[sim:drop]]')));
});

test('[[sim:no-usage]] streams carry no usage at all', async (t) => {
  const { url } = await startTestSimulator(t);
  const openaiEvents = parseSse((await postRaw(`${url}/v1/chat/completions`, chat('hi [[sim:no-usage]]', { stream: true, stream_options: { include_usage: true } }))).text);
  t.is(openaiEvents.at(-1)!.data, '[DONE]');
  t.true(openaiEvents.slice(0, -1).every((event) => !JSON.parse(event.data).usage));
  t.true(openaiEvents.slice(0, -1).every((event) => JSON.parse(event.data).choices.length === 1));
  const anthropicEvents = parseSse((await postRaw(`${url}/v1/messages`, messages('hi [[sim:no-usage]]', { stream: true }))).text).map((event) => JSON.parse(event.data));
  t.deepEqual(anthropicEvents[0].message.usage, { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
  const delta = anthropicEvents.find((event) => event.type === 'message_delta');
  t.false('usage' in delta);
  t.is(delta.delta.stop_reason, 'end_turn');
});

test('[[sim:usage-in-choice]] puts usage on the last chunk that still has a choice', async (t) => {
  const { url, openai } = await startTestSimulator(t);
  const events = parseSse((await postRaw(`${url}/v1/chat/completions`, chat('hi [[sim:usage-in-choice]]', { stream: true, stream_options: { include_usage: true } }))).text);
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
  const last = chunks.at(-1);
  t.is(last.choices.length, 1);
  t.is(last.choices[0].finish_reason, 'stop');
  t.is(last.usage.completion_tokens, 20);
  t.true(chunks.every((chunk) => chunk.choices.length === 1));
  const final = await openai.chat.completions.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi [[sim:usage-in-choice]]' }], stream_options: { include_usage: true } }).finalChatCompletion();
  t.is(final.usage?.completion_tokens, 20);
});

test('[[sim:ttfb=MS]] waits before the first byte; [[sim:delay=MS]] between chunks; [[sim:tokens=N]] sets the length', async (t) => {
  const { openai, anthropic } = await startTestSimulator(t);
  let started = Date.now();
  await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi [[sim:ttfb=150]]' }] });
  t.true(Date.now() - started >= 140);

  started = Date.now();
  const stamps: number[] = [];
  const stream = await openai.chat.completions.create({ model: 'chat', stream: true, messages: [{ role: 'user', content: 'hi [[sim:delay=20]] [[sim:tokens=8]]' }] });
  for await (const _chunk of stream) stamps.push(Date.now() - started);
  t.true(stamps.length >= 5);
  t.true(stamps.at(-1)! - stamps[0]! >= 20 * (stamps.length - 2), `chunks too fast: ${stamps.join(',')}`);

  const long = await anthropic.messages.create({ model: 'chat', max_tokens: 2000, messages: [{ role: 'user', content: 'hi [[sim:tokens=500]]' }] });
  t.is(long.usage.output_tokens, 500);
  t.is(long.stop_reason, 'end_turn');
});

test('a client that disconnects mid-stream stops the stream (the simulator stays healthy)', async (t) => {
  const { url, openai } = await startTestSimulator(t);
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chat('hi [[sim:delay=200]] [[sim:tokens=400]]', { stream: true })),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  await t.throwsAsync(reader.read(), { any: true });
  const completion = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'still there?' }] });
  t.is(completion.choices[0]!.finish_reason, 'stop');
});
