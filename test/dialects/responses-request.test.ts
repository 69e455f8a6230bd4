import test from 'ava';
import { decodeResponsesRequest, responsesDialect } from '../../src/dialects/responses/index.js';
import type { ChatRequest } from '../../src/model/chat.js';
import { RequestValidationError, type ValidationDetail } from '../../src/validation/zod-details.js';
import { rewriteFixture } from './fixture-update.js';
import { fixtureFile, fixtureNames, readFixture } from './responses-fixtures.js';

for (const name of fixtureNames('decode-')) {
  test(`decodes ${name}`, (t) => {
    const fixture = readFixture<{ body: unknown; request?: ChatRequest }>(name);
    const request = JSON.parse(JSON.stringify(decodeResponsesRequest(fixture.body)));
    rewriteFixture(t, fixtureFile(name), { ...fixture, request });
    t.deepEqual(request, fixture.request);
    // No undefined-valued keys: what is absent is left out.
    t.deepEqual(request, { ...decodeResponsesRequest(fixture.body) });
  });
}

function decodeError(body: unknown): ValidationDetail[] {
  try {
    decodeResponsesRequest(body);
  } catch (error) {
    if (error instanceof RequestValidationError) return JSON.parse(JSON.stringify(error.details));
    throw error;
  }
  throw new Error('expected a validation error');
}

for (const name of fixtureNames('error-')) {
  test(`refuses ${name} with 422 details`, (t) => {
    const fixture = readFixture<{ body: unknown; detail?: ValidationDetail[] }>(name);
    const detail = decodeError(fixture.body);
    rewriteFixture(t, fixtureFile(name), { ...fixture, detail });
    t.deepEqual(detail, fixture.detail);
  });
}

test('the stateless rule: previous_response_id and store: true say to send the whole input', (t) => {
  for (const [body, loc] of [
    [{ model: 'm', input: 'x', previous_response_id: 'resp_1' }, ['body', 'previous_response_id']],
    [{ model: 'm', input: 'x', store: true }, ['body', 'store']],
    [{ model: 'm', input: 'x', conversation: 'conv_1' }, ['body', 'conversation']],
  ] as const) {
    const [detail] = decodeError(body);
    t.deepEqual(detail.loc, loc);
    t.regex(detail.msg, /stateless/);
    t.regex(detail.msg, /full conversation in `input`/);
  }
  t.notThrows(() => decodeResponsesRequest({ model: 'm', input: 'x', store: false, previous_response_id: null }));
});

test('a plain string input is one user text; usage is always reported; stream defaults to false', (t) => {
  const request = decodeResponsesRequest({ model: 'm', input: 'hello' });
  t.deepEqual(request.messages, [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
  t.true(request.includeUsage);
  t.false(request.stream);
  t.deepEqual(request.stop, []);
});

test('a function_call after an assistant message joins that turn; outputs join one user turn', (t) => {
  const request = decodeResponsesRequest({
    model: 'm',
    input: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'ok' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{"a":1}' },
      { type: 'function_call_output', call_id: 'c1', output: 'one' },
      { type: 'function_call_output', call_id: 'c2', output: 'two' },
      { role: 'user', content: 'more' },
    ],
  });
  t.deepEqual(
    request.messages.map((m) => [m.role, m.content.map((p) => p.type)]),
    [
      ['user', ['text']],
      ['assistant', ['text', 'tool_call', 'tool_call']],
      ['user', ['tool_result', 'tool_result', 'text']],
    ],
  );
});

test('images: data URLs are split, remote URLs kept, other schemes and file ids refused', (t) => {
  const request = decodeResponsesRequest({
    model: 'm',
    input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/4AAQ', detail: 'low' }] }],
  });
  t.deepEqual(request.messages[0].content, [{ type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQ', detail: 'low' }]);
  const [notBase64] = decodeError({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png,rawbytes' }] }] });
  t.deepEqual(notBase64.loc, ['body', 'input', 0, 'content', 0, 'image_url']);
  const [fileId] = decodeError({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] });
  t.deepEqual(fileId.loc, ['body', 'input', 0, 'content', 0, 'file_id']);
  const [inAssistant] = decodeError({ model: 'm', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] });
  t.regex(inAssistant.msg, /only in user messages/);
});

test('tool_choice must name a declared function; other tool_choice types are refused', (t) => {
  const tools = [{ type: 'function', name: 'f', parameters: { type: 'object' } }];
  t.deepEqual(decodeResponsesRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'f' } }).toolChoice, { type: 'tool', name: 'f' });
  t.deepEqual(decodeResponsesRequest({ model: 'm', input: 'x', tools, tool_choice: 'required' }).toolChoice, { type: 'required' });
  t.deepEqual(decodeError({ model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'g' } })[0].loc, ['body', 'tool_choice', 'name']);
  t.deepEqual(decodeError({ model: 'm', input: 'x', tools, tool_choice: { type: 'web_search_preview' } })[0].loc, ['body', 'tool_choice', 'type']);
});

test('input must be present and hold at least one user or assistant item', (t) => {
  t.deepEqual(decodeError({ model: 'm' })[0], { loc: ['body', 'input'], msg: 'Field required', type: 'missing' });
  t.is(decodeError({ model: 'm', input: [] })[0].type, 'too_short');
  t.deepEqual(decodeError({ model: 'm', input: [{ role: 'developer', content: 'only rules' }] })[0].loc, ['body', 'input']);
  t.is(decodeError({ model: 'm', input: 42 })[0].loc.join('.'), 'body.input');
});

test('the dialect exposes its locations for capability errors', (t) => {
  t.is(responsesDialect.name, 'responses');
  t.deepEqual(responsesDialect.locations, {
    reasoningEffort: ['body', 'reasoning', 'effort'],
    maxOutputTokens: ['body', 'max_output_tokens'],
    tools: ['body', 'tools'],
    messages: ['body', 'input'],
  });
});
