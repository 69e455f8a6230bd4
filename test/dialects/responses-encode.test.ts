import test from 'ava';
import { decodeResponsesRequest, responsesDialect } from '../../src/dialects/responses/index.js';
import type { ChatRequest, StreamPart } from '../../src/model/chat.js';
import { rewriteFixture } from './fixture-update.js';
import { encodeParts, fixtureFile, fixtureNames, parseSse, readFixture, type EncodeFixture, type SseEvent } from './responses-fixtures.js';

const encodeFixtures = fixtureNames('encode-');

for (const name of encodeFixtures) {
  test(`encodes ${name} (SSE and non-streaming body)`, (t) => {
    const fixture = readFixture<EncodeFixture>(name);
    const { sse, result } = encodeParts(fixture);
    rewriteFixture(t, fixtureFile(name), { ...fixture, sse, result });
    t.is(sse, fixture.sse ?? '(missing: run with UPDATE_FIXTURES=1)');
    t.deepEqual(result, fixture.result);
  });

  test(`${name}: the event sequence keeps the rules the SDK relies on`, (t) => {
    const fixture = readFixture<EncodeFixture>(name);
    const { sse, result } = encodeParts(fixture);
    const events = parseSse(sse);
    checkSequence(t, events);
    // The terminal event is exactly what a non-streaming client receives.
    t.deepEqual(events.at(-1)!.data.response, result);
  });
}

function checkSequence(t: import('ava').ExecutionContext, events: SseEvent[]): void {
  events.forEach((event, position) => {
    t.is(event.event, event.data.type, 'the event: line names the payload type');
    t.is(event.data.sequence_number, position, 'sequence numbers count from 0 without gaps');
  });
  t.is(events[0].data.type, 'response.created');
  t.is(events[0].data.response.status, 'in_progress');
  t.deepEqual(events[0].data.response.output, []);
  t.is(events[1].data.type, 'response.in_progress');
  const terminal = events.at(-1)!.data;
  t.regex(terminal.type, /^response\.(completed|incomplete|failed)$/);
  t.is(terminal.response.status, terminal.type.slice('response.'.length));
  t.is(events.filter((e) => /^response\.(completed|incomplete|failed)$/.test(e.data.type)).length, 1, 'one terminal event');

  // Every event about an item comes after that item was added, and before it was done.
  const added = new Map<number, string>();
  const done = new Set<number>();
  const contentOpen = new Set<number>();
  for (const { data } of events) {
    if (data.type === 'response.output_item.added') {
      t.is(data.output_index, added.size, 'output_index counts items in emission order');
      added.set(data.output_index, data.item.id);
    } else if (data.type === 'response.output_item.done') {
      t.is(added.get(data.output_index), data.item.id);
      t.false(done.has(data.output_index));
      done.add(data.output_index);
    } else if ('output_index' in data) {
      t.is(added.get(data.output_index), data.item_id, `${data.type} names an added item`);
      t.false(done.has(data.output_index), `${data.type} after its item was done`);
      if (data.type === 'response.content_part.added') contentOpen.add(data.output_index);
      if (data.type.startsWith('response.output_text.')) t.true(contentOpen.has(data.output_index), 'content_part.added precedes text events');
    }
  }
  if (terminal.type !== 'response.failed') t.is(done.size, added.size, 'every item is done before the terminal event');
  t.deepEqual(terminal.response.output.map((item: { id: string }) => item.id), [...added.values()]);
}

test('item ids derive from the response id and position; upstream ids get the resp_ prefix', (t) => {
  const { result } = encodeParts(readFixture<EncodeFixture>('encode-parallel-tool-calls'));
  t.is(result.id, 'resp_chatcmpl-abc123');
  t.deepEqual(
    (result.output as { id: string }[]).map((item) => item.id),
    ['msg_chatcmpl-abc123_0', 'fc_chatcmpl-abc123_1', 'fc_chatcmpl-abc123_2'],
  );
  t.is(encodeParts(readFixture<EncodeFixture>('encode-plain-text')).result.id, 'resp_0001');
});

test('length ends the response as incomplete with max_output_tokens', (t) => {
  const { sse, result } = encodeParts(readFixture<EncodeFixture>('encode-length'));
  t.is(result.status, 'incomplete');
  t.deepEqual(result.incomplete_details, { reason: 'max_output_tokens' });
  t.is(parseSse(sse).at(-1)!.data.type, 'response.incomplete');
});

/** Sends a result's output items back as input, as a client continuing the conversation does. */
function replay(fixtureName: string, extra: unknown[] = []) {
  const fixture = readFixture<EncodeFixture>(fixtureName);
  const { result, chatResult } = encodeParts(fixture);
  const request = decodeResponsesRequest({ model: 'm', input: [{ role: 'user', content: 'Hi' }, ...(result.output as unknown[]), ...extra] });
  return { request, chatResult };
}

test('reasoning signatures survive the round trip through output items', (t) => {
  const { request, chatResult } = replay('encode-reasoning-signature', [{ type: 'function_call_output', call_id: 'toolu_01', output: 'a cat' }]);
  t.deepEqual(request.messages[1], { role: 'assistant', content: chatResult.content });
  t.deepEqual(request.messages[2], { role: 'user', content: [{ type: 'tool_result', toolCallId: 'toolu_01', content: [{ type: 'text', text: 'a cat' }] }] });
});

test('redacted reasoning and text-less signed reasoning survive the round trip', (t) => {
  const { request, chatResult } = replay('encode-redacted-reasoning');
  t.deepEqual(request.messages[1], { role: 'assistant', content: chatResult.content });
  t.deepEqual(chatResult.content.slice(0, 2), [
    { type: 'redacted_reasoning', data: 'EmwKAhgBEgy3opaque' },
    { type: 'reasoning', text: '', signature: 'sig-without-text' },
  ]);
});

test('parallel tool calls come back as one assistant turn; their outputs as one user turn', (t) => {
  const { request, chatResult } = replay('encode-parallel-tool-calls', [
    { type: 'function_call_output', call_id: 'call_paris', output: '18°C' },
    { type: 'function_call_output', call_id: 'call_rome', output: '22°C' },
  ]);
  t.deepEqual(request.messages[1], { role: 'assistant', content: chatResult.content });
  t.deepEqual(
    request.messages[2].content.map((part) => part.type === 'tool_result' && part.toolCallId),
    ['call_paris', 'call_rome'],
  );
});

const plainRequest: ChatRequest = {
  model: 'm',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  tools: [],
  stop: [],
  stream: true,
  includeUsage: true,
};

test('an error mid-stream is an error event, then response.failed with what was produced; nothing after', (t) => {
  const encoder = responsesDialect.createStreamEncoder(plainRequest, { id: 'resp_e', created: 1 });
  let sse = '';
  const parts: StreamPart[] = [
    { type: 'start', id: 'resp_e', model: 'm' },
    { type: 'text_start', index: 0 },
    { type: 'text_delta', index: 0, text: 'Partial' },
  ];
  for (const part of parts) sse += encoder.encode(part);
  sse += encoder.error('upstream connection lost', 'api_error');
  t.is(encoder.end({ inputTokens: 1, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 1, reasoningTokens: 0 }), '');
  t.is(encoder.encode({ type: 'text_delta', index: 0, text: 'more' }), '');
  const events = parseSse(sse);
  checkSequence(t, events);
  const error = events.at(-2)!;
  t.is(error.event, 'error');
  t.deepEqual(error.data, { type: 'error', sequence_number: events.length - 2, code: 'server_error', message: 'upstream connection lost', param: null });
  const failed = events.at(-1)!.data.response;
  t.is(failed.status, 'failed');
  t.deepEqual(failed.error, { code: 'server_error', message: 'upstream connection lost' });
  t.is(failed.output[0].status, 'incomplete');
  t.is(failed.output[0].content[0].text, 'Partial');
});

test('an error before any part still opens the response first', (t) => {
  const encoder = responsesDialect.createStreamEncoder(plainRequest, { id: 'x1', created: 1 });
  const events = parseSse(encoder.error('bad request upstream', 'invalid_request_error'));
  t.deepEqual(
    events.map((e) => e.data.type),
    ['response.created', 'response.in_progress', 'error', 'response.failed'],
  );
  t.is(events[2].data.code, 'invalid_prompt');
});

test('an upstream finish reason of error ends the stream with response.failed', (t) => {
  const encoder = responsesDialect.createStreamEncoder(plainRequest, { id: 'x2', created: 1 });
  encoder.encode({ type: 'start', id: 'x2', model: 'm' });
  encoder.encode({ type: 'finish', finishReason: 'error', rawFinishReason: 'error' });
  const events = parseSse(encoder.end({ inputTokens: 1, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningTokens: 0 }));
  t.is(events.at(-1)!.data.type, 'response.failed');
  t.is(events.at(-1)!.data.response.error.code, 'server_error');
});

test('blocks left open by a cut upstream are closed before the terminal event', (t) => {
  const encoder = responsesDialect.createStreamEncoder(plainRequest, { id: 'x3', created: 1 });
  let sse = encoder.encode({ type: 'tool_call_start', index: 7, id: 'call_1', name: 'f' });
  sse += encoder.encode({ type: 'tool_call_delta', index: 7, argumentsDelta: '{}' });
  sse += encoder.end({ inputTokens: 1, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 1, reasoningTokens: 0 });
  const events = parseSse(sse);
  checkSequence(t, events);
  t.deepEqual(
    events.slice(2).map((e) => e.data.type),
    ['response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done', 'response.completed'],
  );
});

test('parts for unknown blocks are ignored rather than breaking the stream', (t) => {
  const encoder = responsesDialect.createStreamEncoder(plainRequest, { id: 'x4', created: 1 });
  const opening = encoder.encode({ type: 'text_delta', index: 3, text: 'orphan' });
  t.deepEqual(parseSse(opening).map((e) => e.data.type), ['response.created', 'response.in_progress']);
  t.is(encoder.encode({ type: 'tool_call_end', index: 9 }), '');
});
