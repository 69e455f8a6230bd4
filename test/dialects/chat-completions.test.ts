import test from 'ava';
import { chatCompletionsDialect } from '../../src/dialects/chat-completions/index.js';
import type { AssistantContentPart } from '../../src/model/chat.js';
import { chatAssistantParts, encodeParts, goldenTests, loadFixtures, type EncodeFixture } from './chat-completions-and-messages-golden.js';

goldenTests(chatCompletionsDialect);

for (const { name, fixture } of loadFixtures<EncodeFixture>('chat-completions', 'encode-')) {
  test(`chat-completions round trip: the message of ${name} decodes back to its parts`, (t) => {
    const { result, chatResult } = encodeParts(chatCompletionsDialect, fixture);
    const message = (result as { choices: [{ message: unknown }] }).choices[0].message;
    const request = chatCompletionsDialect.decodeRequest({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }, message] });
    const expected = chatAssistantParts(chatResult);
    if (expected.length === 0) t.is(request.messages.length, 1);
    else t.deepEqual(request.messages[1], { role: 'assistant', content: expected });
  });
}

test('chat-completions: the thinking fixture keeps reasoning, signature, text and tool call in order', (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('chat-completions', 'encode-thinking-tool-use');
  const { chatResult } = encodeParts(chatCompletionsDialect, fixture!);
  t.deepEqual(chatAssistantParts(chatResult), chatResult.content as AssistantContentPart[]);
  t.deepEqual(chatResult.content.map((p) => p.type), ['reasoning', 'text', 'tool_call']);
});

test('chat-completions: max_completion_tokens wins over max_tokens, and either alone is the output budget', (t) => {
  const base = { model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }] };
  t.is(chatCompletionsDialect.decodeRequest({ ...base, max_tokens: 7 }).maxOutputTokens, 7);
  t.is(chatCompletionsDialect.decodeRequest({ ...base, max_completion_tokens: 9 }).maxOutputTokens, 9);
  t.is(chatCompletionsDialect.decodeRequest({ ...base, max_completion_tokens: 9, max_tokens: 7 }).maxOutputTokens, 9);
  t.is(chatCompletionsDialect.decodeRequest({ ...base, max_tokens: null }).maxOutputTokens, undefined);
});

test('chat-completions: a user message that does not follow tool results starts its own turn', (t) => {
  const request = chatCompletionsDialect.decodeRequest({
    model: 'gpt-x',
    messages: [
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: '' },
    ],
  });
  t.deepEqual(
    request.messages.map((m) => m.content.map((p) => p.type)),
    [['text'], ['text'], ['tool_call'], ['tool_result']],
  );
  t.deepEqual(request.messages[3]!.content[0], { type: 'tool_result', toolCallId: 'c', content: [] });
});

test('chat-completions: the in-stream error is a data-only event with the OpenAI error shape', (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('chat-completions', 'encode-plain-text');
  const encoder = chatCompletionsDialect.createStreamEncoder(fixture!.request, fixture!.context);
  t.is(encoder.error('upstream failed', 'api_error'), 'data: {"error":{"message":"upstream failed","type":"api_error","param":null,"code":null}}\n\n');
});
