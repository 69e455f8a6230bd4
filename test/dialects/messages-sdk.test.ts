// The real @anthropic-ai/sdk (v1) stream helper consumes the encoder's SSE: event names,
// order, block numbering, thinking signatures and tool input must all be accepted, and the
// final message must equal the non-streamed body; its content, sent back, decodes to the same parts.
import Anthropic from '@anthropic-ai/sdk';
import test from 'ava';
import { messagesDialect } from '../../src/dialects/messages/index.js';
import { encodeParts, loadFixtures, messagesAssistantParts, serveBody, type EncodeFixture } from './chat-completions-and-messages-golden.js';

function client(origin: string): Anthropic {
  return new Anthropic({ apiKey: 'sk-ant-test', baseURL: origin, maxRetries: 0 });
}

for (const { name, fixture } of loadFixtures<EncodeFixture>('messages', 'encode-')) {
  test(`SDK: messages.stream() accumulates ${name} to the non-streamed body`, async (t) => {
    const { sse, result, chatResult } = encodeParts(messagesDialect, fixture);
    const { origin, requests } = await serveBody(t, sse);
    const final = await client(origin)
      .messages.stream({ model: fixture.request.model, max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'enabled', budget_tokens: 1024 } })
      .finalMessage();

    // The SDK's request itself decodes.
    t.is(messagesDialect.decodeRequest(requests[0]).reasoningEffort, 'minimal');

    // Text blocks carry no `citations` key when none came, streamed or not.
    const expected = structuredClone(result) as { content: Record<string, unknown>[] };
    if (name === 'encode-citation-after-text') {
      // A citation that came after its text block closed travels in an empty text block of its own.
      const [cited] = expected.content.splice(0, 1, { type: 'text', text: (expected.content[0] as { text: string }).text });
      expected.content.push({ type: 'text', text: '', citations: cited!.citations });
    }
    const actual = JSON.parse(JSON.stringify(final)) as Record<string, unknown>;
    t.is(actual.parsed_output, null); // the helper's structured-output slot
    delete actual.parsed_output;
    t.deepEqual(actual, expected);

    // The final message's content, sent back as the next turn, decodes to what was produced.
    const request = messagesDialect.decodeRequest({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: final.content }] });
    const parts = messagesAssistantParts(chatResult);
    if (parts.length > 0) t.deepEqual(request.messages[1], { role: 'assistant', content: parts });
  });
}

test('SDK: a mid-stream error event rejects the stream helper with its type and message', async (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('messages', 'encode-plain-text');
  const encoder = messagesDialect.createStreamEncoder(fixture!.request, fixture!.context);
  let sse = '';
  for (const part of fixture!.parts.slice(0, 4)) sse += encoder.encode(part);
  sse += encoder.error('Overloaded', 'overloaded_error');
  const { origin } = await serveBody(t, sse);
  const stream = client(origin).messages.stream({ model: 'claude-x', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] });
  const error = await t.throwsAsync(stream.finalMessage(), { instanceOf: Anthropic.APIError });
  t.regex(error!.message, /Overloaded/);
});

test('SDK: the non-streamed body parses as a Message', async (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('messages', 'encode-thinking-tool-use');
  const { result } = encodeParts(messagesDialect, fixture!);
  const { origin } = await serveBody(t, JSON.stringify(result), 'application/json');
  const message = await client(origin).messages.create({ model: 'claude-x', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] });
  t.is(message.stop_reason, 'tool_use');
  t.deepEqual(message.content.map((block) => block.type), ['thinking', 'text', 'tool_use']);
  t.is(message.usage.cache_read_input_tokens, 1200);
});
