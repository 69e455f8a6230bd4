import test from 'ava';
import OpenAI from 'openai';
import { countTokens } from '../../src/sim/tokens.js';
import { parseSse, postRaw, startTestSimulator } from './simulator.js';

const question = 'What is the capital of France?';
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } }, required: ['city', 'unit', 'days'] },
  },
};
const timeTool = { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } };

test('a non-stream completion answers from the prompt with exact usage', async (t) => {
  const { openai } = await startTestSimulator(t);
  const completion = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }] });
  const choice = completion.choices[0]!;
  t.is(completion.object, 'chat.completion');
  t.regex(completion.id, /^chatcmpl-/);
  t.is(completion.model, 'chat');
  t.is(choice.finish_reason, 'stop');
  t.true(choice.message.content!.startsWith(`Simulated answer to "${question}": `));
  t.is(countTokens(choice.message.content!), 20);
  // 2 messages: 3 each + ceil(9/4) + ceil(30/4)
  t.deepEqual(completion.usage, {
    prompt_tokens: 3 + 3 + 3 + 8,
    completion_tokens: 20,
    total_tokens: 37,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  });
  // Deterministic: the same request gets the same answer.
  const again = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }] });
  t.is(again.choices[0]!.message.content, choice.message.content);
});

test('a stream delivers the same answer word by word, and the same usage as the non-stream call', async (t) => {
  const { openai, url } = await startTestSimulator(t);
  const params = { model: 'chat', messages: [{ role: 'user' as const, content: `${question} [[sim:tokens=30]]` }] };
  const whole = await openai.chat.completions.create(params);
  const stream = openai.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
  let deltas = 0;
  stream.on('content', () => deltas++);
  const final = await stream.finalChatCompletion();
  t.is(final.choices[0]!.message.content, whole.choices[0]!.message.content);
  t.is(countTokens(final.choices[0]!.message.content!), 30);
  t.true(deltas >= 15, `only ${deltas} deltas`);
  t.deepEqual(final.usage, whole.usage);

  // The wire: role first, usage: null on every chunk, then the choices: [] usage chunk, then [DONE].
  const raw = await postRaw(`${url}/v1/chat/completions`, { ...params, stream: true, stream_options: { include_usage: true } });
  t.is(raw.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const events = parseSse(raw.text);
  t.is(events.at(-1)!.data, '[DONE]');
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
  t.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  t.true(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.object === 'chat.completion.chunk'));
  t.deepEqual(chunks.at(-1).choices, []);
  t.deepEqual(chunks.at(-1).usage, whole.usage);
  t.is(chunks.at(-2).choices[0].finish_reason, 'stop');

  // Without include_usage no chunk mentions usage.
  const plain = parseSse((await postRaw(`${url}/v1/chat/completions`, { ...params, stream: true })).text);
  t.true(plain.slice(0, -1).every((event) => !('usage' in JSON.parse(event.data))));
});

test('tools: two parallel calls with schema-derived arguments streamed in fragments', async (t) => {
  const { openai, url } = await startTestSimulator(t);
  const params = { model: 'chat', messages: [{ role: 'user' as const, content: 'Weather and time in Paris?' }], tools: [weatherTool, timeTool] };
  const final = await openai.chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion();
  const message = final.choices[0]!.message;
  t.is(final.choices[0]!.finish_reason, 'tool_calls');
  const calls = message.tool_calls!.map((call) => (call.type === 'function' ? call : undefined)!);
  t.deepEqual(
    calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)]),
    [
      ['get_weather', { city: 'sim', unit: 'celsius', days: 1 }],
      ['get_time', { zone: 'sim' }],
    ],
  );
  t.true(calls.every((call) => /^call_[0-9a-f]{12}$/.test(call.id)));
  t.not(calls[0]!.id, calls[1]!.id);
  const whole = await openai.chat.completions.create(params);
  // Ids derive from the request body, so the non-stream call has its own; names and arguments agree.
  const strip = (list: OpenAI.ChatCompletionMessageToolCall[] | undefined) => list!.map((call) => (call.type === 'function' ? call.function : undefined));
  t.deepEqual(strip(whole.choices[0]!.message.tool_calls), strip(message.tool_calls));
  t.is(whole.choices[0]!.message.content, null);
  const expectedOutput = calls.reduce((sum, call) => sum + countTokens(call.function.name) + countTokens(call.function.arguments), 0);
  t.is(whole.usage!.completion_tokens, expectedOutput);
  t.deepEqual(final.usage, whole.usage);

  // On the wire the first fragment of a call carries id, type and name; the others only arguments.
  const chunks = parseSse((await postRaw(`${url}/v1/chat/completions`, { ...params, stream: true })).text)
    .slice(0, -1)
    .map((event) => JSON.parse(event.data));
  const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
  const firstOfCall0 = fragments.find((fragment: { index: number }) => fragment.index === 0);
  t.like(firstOfCall0, { index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
  const laterOfCall0 = fragments.filter((fragment: { index: number; id?: string }) => fragment.index === 0 && fragment.id === undefined);
  t.true(laterOfCall0.length >= 3);
  t.true(laterOfCall0.every((fragment: { function: { arguments: string; name?: string } }) => fragment.function.arguments.length <= 8 && fragment.function.name === undefined));

  // parallel_tool_calls: false → one call; a forced tool → that one.
  const single = await openai.chat.completions.create({ ...params, parallel_tool_calls: false });
  t.is(single.choices[0]!.message.tool_calls!.length, 1);
  const forced = await openai.chat.completions.create({ ...params, tool_choice: { type: 'function', function: { name: 'get_time' } } });
  t.deepEqual(forced.choices[0]!.message.tool_calls!.map((call) => (call.type === 'function' ? call.function.name : '')), ['get_time']);
  const none = await openai.chat.completions.create({ ...params, tool_choice: 'none' });
  t.is(none.choices[0]!.finish_reason, 'stop');
});

test('tool results are quoted in the next answer; a call without its result is a 400', async (t) => {
  const { openai } = await startTestSimulator(t);
  const first = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
  const call = first.choices[0]!.message.tool_calls![0]!;
  const history: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }, first.choices[0]!.message];
  const second = await openai.chat.completions.create({ model: 'chat', tools: [weatherTool], messages: [...history, { role: 'tool', tool_call_id: call.id, content: '{"temperature":21}' }] });
  t.is(second.choices[0]!.finish_reason, 'stop');
  t.true(second.choices[0]!.message.content!.startsWith('Tool results: {"temperature":21}. '));

  const error = await t.throwsAsync(openai.chat.completions.create({ model: 'chat', messages: [...history, { role: 'user', content: 'and?' }] }), { instanceOf: OpenAI.BadRequestError });
  t.regex(error!.message, /tool_call_ids did not have response messages/);
  const stray = await t.throwsAsync(openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_x', content: 'x' }] }), {
    instanceOf: OpenAI.BadRequestError,
  });
  t.is((stray as InstanceType<typeof OpenAI.BadRequestError>).type, 'invalid_request_error');
});

test('the prompt prefix of 64+ tokens is cached for the next request with the same prefix', async (t) => {
  const { openai } = await startTestSimulator(t);
  const system = { role: 'system' as const, content: 'You are a careful assistant. '.repeat(12) };
  const first = await openai.chat.completions.create({ model: 'chat', messages: [system, { role: 'user', content: 'first question' }] });
  t.is(first.usage!.prompt_tokens_details!.cached_tokens, 0);
  const prefixTokens = 3 + countTokens(system.content);
  t.true(prefixTokens >= 64);
  const second = await openai.chat.completions.create({ model: 'chat', stream: true, stream_options: { include_usage: true }, messages: [system, { role: 'user', content: 'a different question' }] });
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of second) usage = chunk.usage ?? usage;
  t.is(usage!.prompt_tokens_details!.cached_tokens, prefixTokens);
  t.is(usage!.prompt_tokens, prefixTokens + 3 + countTokens('a different question'));
  // The cache is per model, and a short prefix is never cached.
  const other = await openai.chat.completions.create({ model: 'chat-2', messages: [system, { role: 'user', content: 'x' }] });
  t.is(other.usage!.prompt_tokens_details!.cached_tokens, 0);
  const short = [{ role: 'system' as const, content: 'short' }, { role: 'user' as const, content: 'x' }];
  await openai.chat.completions.create({ model: 'chat', messages: short });
  t.is((await openai.chat.completions.create({ model: 'chat', messages: short })).usage!.prompt_tokens_details!.cached_tokens, 0);
});

test('search models cite two sources, Perplexity style, on the response and on every chunk', async (t) => {
  const { openai } = await startTestSimulator(t);
  const whole = (await openai.chat.completions.create({ model: 'sonar', messages: [{ role: 'user', content: question }] })) as OpenAI.ChatCompletion & {
    citations: string[];
    search_results: { title: string; url: string; date: string }[];
  };
  t.deepEqual(whole.citations, ['https://example.com/sim/what-is-the-capital-1', 'https://example.com/sim/what-is-the-capital-2']);
  t.deepEqual(
    whole.search_results.map((result) => result.url),
    whole.citations,
  );
  t.true(whole.search_results.every((result) => result.title.length > 0 && /^\d{4}-\d{2}-\d{2}$/.test(result.date)));
  const stream = await openai.chat.completions.create({ model: 'search', stream: true, messages: [{ role: 'user', content: question }] });
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    t.deepEqual((chunk as unknown as { citations: string[] }).citations, whole.citations);
  }
  t.true(chunks > 5);
  const plain = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: question }] });
  t.false('citations' in plain);
});

test('reasoning models count hidden reasoning tokens; the compatible flavor shows reasoning_content', async (t) => {
  const { openai, url } = await startTestSimulator(t);
  const messages = [{ role: 'user' as const, content: question }];
  const hidden = await openai.chat.completions.create({ model: 'reasoning', reasoning_effort: 'low', messages });
  t.is(hidden.usage!.completion_tokens_details!.reasoning_tokens, 24);
  t.is(hidden.usage!.completion_tokens, 24 + 20);
  t.false('reasoning_content' in hidden.choices[0]!.message);
  const off = await openai.chat.completions.create({ model: 'reasoning', messages });
  t.is(off.usage!.completion_tokens_details!.reasoning_tokens, 0);

  const compat = await openai.chat.completions.create({ model: 'reasoning-compat', reasoning_effort: 'medium', messages });
  const reasoningContent = (compat.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content;
  t.true(reasoningContent.startsWith(`Considering: ${question}`));
  t.is(countTokens(reasoningContent), compat.usage!.completion_tokens_details!.reasoning_tokens!);

  // Header flavor, streamed: reasoning_content deltas come before content deltas.
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sim-flavor': 'compatible' },
    body: JSON.stringify({ model: 'reasoning', reasoning_effort: 'medium', stream: true, messages }),
  });
  const deltas = parseSse(await response.text())
    .slice(0, -1)
    .map((event) => JSON.parse(event.data).choices[0].delta);
  const firstContent = deltas.findIndex((delta) => delta.content);
  const lastReasoning = deltas.findLastIndex((delta) => delta.reasoning_content);
  t.true(lastReasoning > 0 && lastReasoning < firstContent);
  t.is(deltas.map((delta) => delta.reasoning_content ?? '').join(''), reasoningContent);

  // max_completion_tokens includes reasoning: 24 of reasoning leave 6 of text.
  const cut = await openai.chat.completions.create({ model: 'reasoning', reasoning_effort: 'low', max_completion_tokens: 30, messages });
  t.is(cut.choices[0]!.finish_reason, 'length');
  t.is(cut.usage!.completion_tokens, 30);
  t.is(countTokens(cut.choices[0]!.message.content!), 6);
});

test('max_tokens cuts the answer (length); a stop sequence ends it where it appears', async (t) => {
  const { openai } = await startTestSimulator(t);
  const messages = [{ role: 'user' as const, content: question }];
  const short = await openai.chat.completions.create({ model: 'chat', max_tokens: 5, messages });
  t.is(short.choices[0]!.finish_reason, 'length');
  t.is(short.choices[0]!.message.content, 'Simulated answer to ');
  t.is(short.usage!.completion_tokens, 5);
  const stopped = await openai.chat.completions.create({ model: 'chat', stop: ['capital', 'never-there'], messages });
  t.is(stopped.choices[0]!.finish_reason, 'stop');
  t.is(stopped.choices[0]!.message.content, 'Simulated answer to "What is the ');
  t.is(stopped.usage!.completion_tokens, countTokens('Simulated answer to "What is the '));
});

test('images are counted (85 tokens each) and mentioned in the answer', async (t) => {
  const { openai } = await startTestSimulator(t);
  const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
  const completion = await openai.chat.completions.create({
    model: 'chat',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image, image] }],
  });
  t.regex(completion.choices[0]!.message.content!, /I see 2 image\(s\)/);
  t.is(completion.usage!.prompt_tokens, 3 + countTokens('What is this?') + 2 * 85);
});

test('bad requests get OpenAI-shaped 400s; models and health answer', async (t) => {
  const { openai, url } = await startTestSimulator(t);
  const noMessages = await t.throwsAsync(openai.chat.completions.create({ model: 'chat', messages: [] }), { instanceOf: OpenAI.BadRequestError });
  t.is((noMessages as InstanceType<typeof OpenAI.BadRequestError>).param, 'messages');
  await t.throwsAsync(openai.chat.completions.create({ model: 'chat', max_completion_tokens: 0, messages: [{ role: 'user', content: 'x' }] }), { instanceOf: OpenAI.BadRequestError });
  const raw = await postRaw(`${url}/v1/chat/completions`, 'not an object');
  t.is(raw.status, 400);
  t.deepEqual(Object.keys(JSON.parse(raw.text).error).sort(), ['code', 'message', 'param', 'type']);
  t.truthy(raw.headers.get('x-request-id'));
  const models = await openai.models.list();
  t.true(models.data.some((model) => model.id === 'reasoning'));
  t.deepEqual(await (await fetch(`${url}/healthz`)).json(), { status: 'ok' });
  t.is((await fetch(`${url}/v1/nothing`)).status, 404);
});
