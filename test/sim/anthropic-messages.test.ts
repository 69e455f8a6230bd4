import Anthropic from '@anthropic-ai/sdk';
import test from 'ava';
import { countTokens } from '../../src/sim/tokens.js';
import { parseSse, postRaw, startTestSimulator } from './simulator.js';

const question = 'Why is the sky blue?';
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' }, metric: { type: 'boolean' } }, required: ['city', 'metric'] },
};
const timeTool = { name: 'get_time', input_schema: { type: 'object' as const, properties: { zone: { type: 'string' } }, required: ['zone'] } };

test('a non-stream message and a streamed one carry the same answer and usage', async (t) => {
  const { anthropic, url } = await startTestSimulator(t);
  const params = { model: 'chat', max_tokens: 1024, system: 'Be brief.', messages: [{ role: 'user' as const, content: question }] };
  const whole = await anthropic.messages.create(params);
  t.is(whole.type, 'message');
  t.regex(whole.id, /^msg_/);
  t.is(whole.stop_reason, 'end_turn');
  t.is(whole.stop_sequence, null);
  const text = whole.content[0]!.type === 'text' ? whole.content[0]!.text : '';
  t.true(text.startsWith(`Simulated answer to "${question}": `));
  // system: 3 + ceil(9/4); the message: 3 + ceil(20/4)
  t.like(whole.usage, { input_tokens: 3 + 3 + 3 + 5, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

  const stream = anthropic.messages.stream(params);
  let deltas = 0;
  stream.on('text', () => deltas++);
  const final = await stream.finalMessage();
  t.deepEqual(final.content, whole.content);
  t.deepEqual(final.usage, { input_tokens: 14, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  t.true(deltas >= 8);

  // The wire: named events in the documented order.
  const events = parseSse((await postRaw(`${url}/v1/messages`, { ...params, stream: true })).text);
  t.true(events.every((event) => event.event === JSON.parse(event.data).type));
  const names = events.map((event) => event.event);
  t.deepEqual(names.slice(0, 3), ['message_start', 'ping', 'content_block_start']);
  t.deepEqual(names.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  t.deepEqual(JSON.parse(events.at(-2)!.data).usage, { output_tokens: 20 });
  t.deepEqual(JSON.parse(events[0]!.data).message.usage, { input_tokens: 14, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 });
});

test('thinking: a signed thinking block first; the signature is checked when it comes back', async (t) => {
  const { anthropic } = await startTestSimulator(t);
  const params = { model: 'reasoning', max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: question }] };
  const message = await anthropic.messages.stream(params).finalMessage();
  const thinking = message.content[0]!;
  if (thinking.type !== 'thinking') return t.fail('no thinking block first');
  t.true(thinking.thinking.startsWith(`Considering: ${question}`));
  t.is(countTokens(thinking.thinking), 40);
  t.true(thinking.signature.length > 20);
  t.is(message.usage.output_tokens, 40 + 20);
  const whole = await anthropic.messages.create(params);
  t.deepEqual(whole.content, message.content);

  const followUp = (block: Anthropic.ThinkingBlockParam) =>
    anthropic.messages.create({
      ...params,
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: [block, { type: 'text', text: 'It scatters.' }] },
        { role: 'user', content: 'Tell me more.' },
      ],
    });
  const ok = await followUp({ type: 'thinking', thinking: thinking.thinking, signature: thinking.signature });
  t.is(ok.stop_reason, 'end_turn');
  const tampered = await t.throwsAsync(followUp({ type: 'thinking', thinking: `${thinking.thinking}!`, signature: thinking.signature }), { instanceOf: Anthropic.BadRequestError });
  t.regex(tampered!.message, /thinking block signature is invalid/);
  t.is((tampered as InstanceType<typeof Anthropic.BadRequestError>).type, 'invalid_request_error');

  // A smaller budget shows less thinking; a model that does not reason shows none.
  const small = await anthropic.messages.create({ ...params, thinking: { type: 'enabled', budget_tokens: 8 } });
  t.is(small.content[0]!.type === 'thinking' && countTokens(small.content[0]!.thinking), 8);
  const plain = await anthropic.messages.create({ ...params, model: 'chat' });
  t.is(plain.content[0]!.type, 'text');
});

test('thinking: [[sim:redacted]] adds a redacted_thinking block; another secret rejects our signatures', async (t) => {
  const { anthropic } = await startTestSimulator(t);
  const params = { model: 'reasoning', max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: `${question} [[sim:redacted]]` }] };
  const message = await anthropic.messages.stream(params).finalMessage();
  t.deepEqual(
    message.content.map((block) => block.type),
    ['thinking', 'redacted_thinking', 'text'],
  );
  const redacted = message.content[1]!;
  t.true(redacted.type === 'redacted_thinking' && Buffer.from(redacted.data, 'base64').length > 0);
  const thinking = message.content[0]!;
  const other = await startTestSimulator(t, 'another-secret');
  await t.throwsAsync(
    other.anthropic.messages.create({ ...params, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [thinking as Anthropic.ThinkingBlock] }, { role: 'user', content: 'more' }] }),
    { instanceOf: Anthropic.BadRequestError, message: /signature/ },
  );
});

test('tool use round trip, with thinking kept in the assistant turn', async (t) => {
  const { anthropic, url } = await startTestSimulator(t);
  const base = { model: 'reasoning', max_tokens: 4096, tools: [weatherTool, timeTool], thinking: { type: 'enabled' as const, budget_tokens: 2000 } };
  const first = await anthropic.messages.stream({ ...base, messages: [{ role: 'user', content: 'Weather and time in Paris?' }] }).finalMessage();
  t.is(first.stop_reason, 'tool_use');
  t.deepEqual(
    first.content.map((block) => block.type),
    ['thinking', 'tool_use', 'tool_use'],
  );
  const uses = first.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  t.deepEqual(
    uses.map((use) => [use.name, use.input]),
    [
      ['get_weather', { city: 'sim', metric: true }],
      ['get_time', { zone: 'sim' }],
    ],
  );
  t.true(uses.every((use) => /^toolu_[0-9a-f]{12}$/.test(use.id)));
  const thinkingTokens = first.content[0]!.type === 'thinking' ? countTokens(first.content[0]!.thinking) : 0;
  t.is(first.usage.output_tokens, thinkingTokens + uses.reduce((sum, use) => sum + countTokens(use.name) + countTokens(JSON.stringify(use.input)), 0));

  // Streamed input arrives as input_json_delta fragments after an empty input.
  const events = parseSse((await postRaw(`${url}/v1/messages`, { ...base, stream: true, messages: [{ role: 'user', content: 'Weather and time in Paris?' }] })).text).map((event) =>
    JSON.parse(event.data),
  );
  const toolStart = events.find((event) => event.type === 'content_block_start' && event.content_block.type === 'tool_use');
  t.deepEqual(toolStart.content_block.input, {});
  t.true(events.filter((event) => event.delta?.type === 'input_json_delta' && event.index === toolStart.index).length >= 3);

  const results: Anthropic.ToolResultBlockParam[] = [
    { type: 'tool_result', tool_use_id: uses[0]!.id, content: 'sunny, 21C' },
    { type: 'tool_result', tool_use_id: uses[1]!.id, content: [{ type: 'text', text: '14:05' }] },
  ];
  const second = await anthropic.messages.create({
    ...base,
    messages: [
      { role: 'user', content: 'Weather and time in Paris?' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: results },
    ],
  });
  t.is(second.stop_reason, 'end_turn');
  const answer = second.content.find((block) => block.type === 'text');
  t.true(answer?.type === 'text' && answer.text.startsWith('Tool results: sunny, 21C; 14:05. '));

  // The real API's rules: thinking must lead a tool-use turn, every tool_use needs its result.
  await t.throwsAsync(
    anthropic.messages.create({
      ...base,
      messages: [{ role: 'user', content: 'Weather?' }, { role: 'assistant', content: first.content.slice(1) }, { role: 'user', content: results }],
    }),
    { instanceOf: Anthropic.BadRequestError, message: /Expected `thinking` or `redacted_thinking`/ },
  );
  await t.throwsAsync(
    anthropic.messages.create({ ...base, messages: [{ role: 'user', content: 'Weather?' }, { role: 'assistant', content: first.content }, { role: 'user', content: [results[0]!] }] }),
    { instanceOf: Anthropic.BadRequestError, message: /tool_use` ids were found without `tool_result`/ },
  );

  // tool_choice: a named tool, or one call when parallel use is disabled.
  const forced = await anthropic.messages.create({ model: 'chat', max_tokens: 100, tools: [weatherTool, timeTool], tool_choice: { type: 'tool', name: 'get_time' }, messages: [{ role: 'user', content: 'x' }] });
  t.deepEqual(
    forced.content.map((block) => (block.type === 'tool_use' ? block.name : block.type)),
    ['get_time'],
  );
  const single = await anthropic.messages.create({
    model: 'chat',
    max_tokens: 100,
    tools: [weatherTool, timeTool],
    tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    messages: [{ role: 'user', content: 'x' }],
  });
  t.is(single.content.length, 1);
});

test('cache_control: the first request writes the prefix, the next reads it, count_tokens counts it all', async (t) => {
  const { anthropic } = await startTestSimulator(t);
  const systemText = 'You are a meticulous assistant who answers in full sentences. '.repeat(5);
  const params = (userText: string) => ({
    model: 'chat',
    max_tokens: 256,
    system: [{ type: 'text' as const, text: systemText, cache_control: { type: 'ephemeral' as const } }],
    messages: [{ role: 'user' as const, content: userText }],
  });
  const prefix = 3 + countTokens(systemText);
  const rest = 3 + countTokens('first');
  const first = await anthropic.messages.create(params('first'));
  t.like(first.usage, { cache_creation_input_tokens: prefix, cache_read_input_tokens: 0, input_tokens: rest });
  const second = await anthropic.messages.stream(params('second')).finalMessage();
  t.like(second.usage, { cache_creation_input_tokens: 0, cache_read_input_tokens: prefix, input_tokens: 3 + countTokens('second') });
  const counted = await anthropic.messages.countTokens({ model: 'chat', system: params('first').system, messages: params('first').messages });
  t.is(counted.input_tokens, prefix + rest);

  // A breakpoint further on: the cached part is read, only the extension is written.
  const longer = {
    ...params('x'),
    messages: [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'A long shared document. '.repeat(10), cache_control: { type: 'ephemeral' as const } }] },
      { role: 'assistant' as const, content: 'Noted.' },
      { role: 'user' as const, content: 'Summarize it.' },
    ],
  };
  const extended = await anthropic.messages.create(longer);
  const documentTokens = 3 + countTokens('A long shared document. '.repeat(10));
  t.like(extended.usage, { cache_read_input_tokens: prefix, cache_creation_input_tokens: documentTokens });
  t.is(extended.usage.input_tokens, 3 + countTokens('Noted.') + 3 + countTokens('Summarize it.'));
  // Other models have their own cache.
  const otherModel = await anthropic.messages.create({ ...params('first'), model: 'chat-2' });
  t.is(otherModel.usage.cache_read_input_tokens, 0);
});

test('search models cite sources: citations on the text block, citations_delta in streams', async (t) => {
  const { anthropic } = await startTestSimulator(t);
  const params = { model: 'search', max_tokens: 512, messages: [{ role: 'user' as const, content: question }] };
  const whole = await anthropic.messages.create(params);
  const block = whole.content[0]!;
  if (block.type !== 'text') return t.fail();
  t.is(block.citations!.length, 2);
  t.like(block.citations![0], { type: 'web_search_result_location', url: 'https://example.com/sim/why-is-the-sky-1' });
  const streamed = await anthropic.messages.stream(params).finalMessage();
  t.deepEqual(streamed.content, whole.content);
  const plain = await anthropic.messages.create({ ...params, model: 'chat' });
  t.is(plain.content[0]!.type === 'text' && plain.content[0]!.citations, null);
});

test('max_tokens and stop_sequences; images; validation errors in Anthropic shape', async (t) => {
  const { anthropic, url } = await startTestSimulator(t);
  const cut = await anthropic.messages.create({ model: 'chat', max_tokens: 5, messages: [{ role: 'user', content: question }] });
  t.is(cut.stop_reason, 'max_tokens');
  t.is(cut.usage.output_tokens, 5);
  const stopped = await anthropic.messages.stream({ model: 'chat', max_tokens: 100, stop_sequences: ['sky'], messages: [{ role: 'user', content: question }] }).finalMessage();
  t.is(stopped.stop_reason, 'stop_sequence');
  t.is(stopped.stop_sequence, 'sky');
  t.deepEqual(stopped.content, [{ type: 'text', text: 'Simulated answer to "Why is the ', citations: null }]);

  const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' } };
  const seen = await anthropic.messages.create({ model: 'chat', max_tokens: 100, messages: [{ role: 'user', content: [image, { type: 'text', text: 'What is it?' }] }] });
  t.regex(seen.content[0]!.type === 'text' ? seen.content[0]!.text : '', /I see 1 image\(s\)/);
  t.is(seen.usage.input_tokens, 3 + 85 + countTokens('What is it?'));

  const missing = await postRaw(`${url}/v1/messages`, { model: 'chat', messages: [{ role: 'user', content: 'x' }] });
  t.is(missing.status, 400);
  t.like(JSON.parse(missing.text), { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  await t.throwsAsync(anthropic.messages.create({ model: 'chat', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: ' ' }] }] }), { instanceOf: Anthropic.BadRequestError });
  const models = await anthropic.models.list();
  t.true(models.data.some((model) => model.id === 'chat' && model.type === 'model'));
});
