// The real openai-node (v6) stream helper consumes the encoder's SSE: it must accept the
// chunk sequence (role, finish_reason, tool call types and names, [DONE]) and accumulate the
// same message as the non-streamed body; that message, sent back, decodes to the same parts.
import test from 'ava';
import OpenAI from 'openai';
import { chatCompletionsDialect } from '../../src/dialects/chat-completions/index.js';
import { chatAssistantParts, encodeParts, loadFixtures, serveBody, type EncodeFixture } from './chat-completions-and-messages-golden.js';

function client(origin: string): OpenAI {
  return new OpenAI({ apiKey: 'sk-test', baseURL: `${origin}/v1`, maxRetries: 0 });
}

for (const { name, fixture } of loadFixtures<EncodeFixture>('chat-completions', 'encode-')) {
  test(`SDK: chat.completions.stream() accumulates ${name} to the non-streamed body`, async (t) => {
    const { sse, result, chatResult } = encodeParts(chatCompletionsDialect, fixture);
    const { origin, requests } = await serveBody(t, sse);
    const stream = client(origin).chat.completions.stream({
      model: fixture.request.model,
      messages: [{ role: 'user', content: 'Hi' }],
      ...(fixture.request.includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    const final = JSON.parse(JSON.stringify(await stream.finalChatCompletion())) as Record<string, unknown> & { choices: [{ message: Record<string, unknown> }] };

    // The SDK's request itself decodes.
    t.is(chatCompletionsDialect.decodeRequest(requests[0]).includeUsage, fixture.request.includeUsage);

    // Known, documented differences: the SDK keeps only the last reasoning_content piece (it
    // overwrites unknown delta fields), adds no annotations when none came, and has no usage
    // without include_usage.
    const expected = structuredClone(result) as typeof final;
    const message = final.choices[0].message;
    const expectedMessage = expected.choices[0].message;
    if ('reasoning_content' in expectedMessage) {
      t.true((expectedMessage.reasoning_content as string).endsWith(message.reasoning_content as string));
      delete expectedMessage.reasoning_content;
      delete message.reasoning_content;
    }
    if ((expectedMessage.annotations as unknown[]).length === 0 && message.annotations === undefined) delete expectedMessage.annotations;
    if (!fixture.request.includeUsage) delete expected.usage;
    delete message.parsed;
    for (const call of (message.tool_calls ?? []) as { function: { parsed_arguments?: unknown } }[]) delete call.function.parsed_arguments;
    t.deepEqual(final, expected);

    // The helper's message, sent back as the next turn, decodes to what was produced.
    const request = chatCompletionsDialect.decodeRequest({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }, final.choices[0].message] });
    const parts = chatAssistantParts(chatResult);
    if (parts.length > 0) t.deepEqual(request.messages[1], { role: 'assistant', content: parts });
  });
}

test('SDK: a mid-stream error event rejects the stream helper with the message', async (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('chat-completions', 'encode-plain-text');
  const encoder = chatCompletionsDialect.createStreamEncoder(fixture!.request, fixture!.context);
  let sse = '';
  for (const part of fixture!.parts.slice(0, 4)) sse += encoder.encode(part);
  sse += encoder.error('the upstream went away', 'api_error');
  const { origin } = await serveBody(t, sse);
  const stream = client(origin).chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }] });
  const error = await t.throwsAsync(stream.finalChatCompletion(), { instanceOf: OpenAI.APIError });
  t.regex(error!.message, /the upstream went away/);
});

test('SDK: the non-streamed body parses as a ChatCompletion', async (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('chat-completions', 'encode-thinking-tool-use');
  const { result } = encodeParts(chatCompletionsDialect, fixture!);
  const { origin } = await serveBody(t, JSON.stringify(result), 'application/json');
  const completion = await client(origin).chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }] });
  t.is(completion.choices[0]!.finish_reason, 'tool_calls');
  t.is(completion.choices[0]!.message.tool_calls?.[0]?.id, 'toolu_01');
  t.is(completion.usage?.prompt_tokens_details?.cached_tokens, 1200);
});
