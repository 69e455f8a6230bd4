// Issue 34, the chat path: what real tools send by default is served, and a refusal quotes what
// the client sent. Claude Code asks max_tokens 32000 of every model and sends thinking by default;
// OpenAI's clients send `xhigh` and assistant turns without content.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway, testPrices, upstreamKinds } from '../helpers/chat-gateway.js';

const clampedHeader = 'x-gateway-max-tokens-clamped';
// The Anthropic clients set a timeout: without one the SDK refuses a large max_tokens unstreamed.

/** A model whose output limit (8192) leaves room for little more in its context window. */
const smallWindowModel = {
  id: 't/small-window',
  name: 'small window',
  type: 'text',
  route: { provider: 'sim', model: 'chat' },
  pricing: testPrices,
  capabilities: { max_output_tokens: 8192, context_window: 9000 },
};

testOnBackends('max_tokens above the model limit is clamped to it in every dialect: served, held and fitted for the limit, named in a header', async (t, database) => {
  const gateway = await startChatGateway(t, database, { models: [smallWindowModel] });
  // 5000 units cover the worst case at 8192 output tokens (3277 units) but not at 32000 (12800).
  const { key } = await gateway.newClient({ balanceUnits: 5_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0, timeout: 60_000 });
  for (const kind of upstreamKinds) {
    const model = `${kind}/chat`;
    const chat = await openai.chat.completions.create({ model, max_tokens: 32_000, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    t.is(chat.data.choices[0]!.finish_reason, 'stop', `${model} chat`);
    t.is(chat.response.headers.get(clampedHeader), '32000->8192', `${model} chat`);
    const completion = await openai.chat.completions.create({ model, max_completion_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    t.is(completion.response.headers.get(clampedHeader), '100000->8192', `${model} max_completion_tokens`);
    const response = await openai.responses.create({ model, max_output_tokens: 32_000, input: 'hi' }).withResponse();
    t.is(response.data.status, 'completed', `${model} responses`);
    t.is(response.data.max_output_tokens, 8192, `${model} responses echoes the budget used`);
    t.is(response.response.headers.get(clampedHeader), '32000->8192', `${model} responses`);
    const message = await anthropic.messages.create({ model, max_tokens: 32_000, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    t.is(message.data.stop_reason, 'end_turn', `${model} messages`);
    t.is(message.response.headers.get(clampedHeader), '32000->8192', `${model} messages`);
    // Streamed: the header leaves with the stream's head.
    const stream = await anthropic.messages.create({ model, max_tokens: 32_000, stream: true, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    for await (const _event of stream.data);
    t.is(stream.response.headers.get(clampedHeader), '32000->8192', `${model} messages streamed`);
  }
  // A budget within the limit is sent as asked, with no header.
  const within = await openai.chat.completions.create({ model: 'sim/chat', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  t.is(within.response.headers.get(clampedHeader), null);
  // The context window is fitted with the clamped budget: 8192 + the input fit in 9000, 32000 would not.
  const fitted = await anthropic.messages.create({ model: 't/small-window', max_tokens: 32_000, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  t.is(fitted.data.stop_reason, 'end_turn');
  t.is(fitted.response.headers.get(clampedHeader), '32000->8192');
});

testOnBackends('thinking on /v1/messages is a hint: a model that does not reason ignores it, one that does is served at its closest level', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0, timeout: 60_000 });
  for (const kind of upstreamKinds) {
    const plain = await anthropic.messages.create({ model: `${kind}/chat`, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'hi' }] });
    t.is(plain.stop_reason, 'end_turn', `${kind}/chat`);
    t.deepEqual(plain.content.map((block) => block.type), ['text'], `${kind}/chat thinks not`);
    const off = await anthropic.messages.create({ model: `${kind}/chat`, max_tokens: 64, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'hi' }] });
    t.is(off.stop_reason, 'end_turn', `${kind}/chat thinking disabled`);
    // Claude Code's budget for its larger models: 31999 of 32000 is beyond this model's top level (high).
    const deep = await anthropic.messages.create({ model: `${kind}/reasoning`, max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 31_999 }, messages: [{ role: 'user', content: 'hi' }] });
    t.is(deep.stop_reason, 'end_turn', `${kind}/reasoning`);
  }
});

testOnBackends('a refused reasoning setting quotes what the client sent, in every dialect', async (t, database) => {
  const gateway = await startChatGateway(t, database, {
    models: [
      {
        id: 't/always-thinks',
        name: 'always thinks',
        type: 'text',
        route: { provider: 'sim', model: 'reasoning' },
        pricing: testPrices,
        capabilities: { reasoning_efforts: ['low', 'high'], can_disable_reasoning: false, max_output_tokens: 32768 },
      },
    ],
  });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const chat = (await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', reasoning_effort: 'minimal', messages: [{ role: 'user', content: 'hi' }] }))) as any;
  t.is(chat.status, 422);
  t.is(chat.message, `422 body.reasoning_effort: reasoning_effort "minimal" is not supported by sim/chat: this model does not reason; leave it out`);
  const responses = (await t.throwsAsync(openai.responses.create({ model: 'sim/chat', reasoning: { effort: 'high' }, input: 'hi' }))) as any;
  t.is(responses.status, 422);
  t.is(responses.message, `422 body.reasoning.effort: reasoning.effort "high" is not supported by sim/chat: this model does not reason; leave it out`);
  // An alias is quoted as sent, not as the level it stands for.
  const alias = (await t.throwsAsync(openai.chat.completions.create({ model: 't/always-thinks', reasoning_effort: 'none', messages: [{ role: 'user', content: 'hi' }] }))) as any;
  t.is(alias.message, `422 body.reasoning_effort: reasoning_effort "none" is not supported by t/always-thinks: use one of 'low', 'high'`);
  const raw = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 't/always-thinks', max_tokens: 4096, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(raw.status, 422);
  const body = (await raw.json()) as { detail: { loc: string[]; input: unknown }[]; error: { message: string } };
  t.deepEqual(body.detail[0]!.loc, ['body', 'thinking']);
  t.deepEqual(body.detail[0]!.input, { type: 'disabled' });
  t.is(body.error.message, `body.thinking: thinking {"type":"disabled"} is not supported by t/always-thinks: use one of 'low', 'high'`);
  // Switching reasoning off on a model that does not reason asks for nothing it does: served.
  const none = await openai.chat.completions.create({ model: 'sim/chat', reasoning_effort: 'none', messages: [{ role: 'user', content: 'hi' }] });
  t.is(none.choices[0]!.finish_reason, 'stop');
});

testOnBackends('chat completions: an assistant message may leave out content or send null, with or without tool calls, over every upstream kind', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }];
  const histories: Record<string, unknown[]> = {
    'null content with tool calls': [{ role: 'user', content: 'Weather in Paris?' }, { role: 'assistant', content: null, tool_calls: toolCalls }, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }],
    'no content with tool calls': [{ role: 'user', content: 'Weather in Paris?' }, { role: 'assistant', tool_calls: toolCalls }, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }],
    'null content alone': [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null }, { role: 'user', content: 'hi again' }],
    'no content alone': [{ role: 'user', content: 'hi' }, { role: 'assistant' }, { role: 'user', content: 'hi again' }],
  };
  for (const kind of upstreamKinds) {
    for (const [name, messages] of Object.entries(histories)) {
      for (const stream of [false, true]) {
        // Raw bodies: the SDK's types would not let a test send what Python clients send.
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          // Tools only where the history used them: with tools on offer the simulator calls one.
          body: JSON.stringify({ model: `${kind}/chat`, ...(name.includes('tool calls') ? { tools } : {}), messages, stream }),
        });
        const text = await response.text();
        t.is(response.status, 200, `${kind} ${name} stream=${stream}: ${text.slice(0, 300)}`);
        if (!stream) t.is((JSON.parse(text) as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason, 'stop', `${kind} ${name}`);
        else t.true(text.trimEnd().endsWith('data: [DONE]'), `${kind} ${name} streamed`);
      }
    }
  }
});

testOnBackends('xhigh is a reasoning level of its own, between high and max, in the catalog, the requests and the answers', async (t, database) => {
  const model = (id: string, efforts: string[]) => ({
    id,
    name: id,
    type: 'text',
    route: { provider: 'openai', model: 'reasoning' },
    pricing: testPrices,
    capabilities: { reasoning_efforts: efforts, max_output_tokens: 32768 },
  });
  const gateway = await startChatGateway(t, database, { models: [model('t/openai-like', ['low', 'high', 'xhigh']), model('t/anthropic-like', ['low', 'high', 'max'])] });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0, timeout: 60_000 });
  t.deepEqual(((await openai.models.retrieve('t/openai-like')) as any).capabilities.reasoning_efforts, ['low', 'high', 'xhigh']);
  t.deepEqual(((await openai.models.retrieve('t/anthropic-like')) as any).capabilities.reasoning_efforts, ['low', 'high', 'max']);
  // Served as asked, and the answer echoes the level asked, not another.
  const response = await openai.responses.create({ model: 't/openai-like', reasoning: { effort: 'xhigh' }, input: 'hi' });
  t.is(response.status, 'completed');
  t.is(response.reasoning!.effort, 'xhigh');
  const chat = await openai.chat.completions.create({ model: 't/openai-like', reasoning_effort: 'xhigh', messages: [{ role: 'user', content: 'hi' }] });
  t.true(chat.usage!.completion_tokens_details!.reasoning_tokens! > 0);
  // A level the model does not list is refused like any other, quoted as sent.
  const noXhigh = (await t.throwsAsync(openai.chat.completions.create({ model: 't/anthropic-like', reasoning_effort: 'xhigh', messages: [{ role: 'user', content: 'hi' }] }))) as any;
  t.is(noXhigh.message, `422 body.reasoning_effort: reasoning_effort "xhigh" is not supported by t/anthropic-like: use one of 'low', 'high', 'max'`);
  const noMax = (await t.throwsAsync(openai.responses.create({ model: 't/openai-like', reasoning: { effort: 'max' as never }, input: 'hi' }))) as any;
  t.is(noMax.message, `422 body.reasoning.effort: reasoning.effort "max" is not supported by t/openai-like: use one of 'low', 'high', 'xhigh'`);
  // As a hint (Anthropic's output_config.effort) it lands on the closest level, the stronger on a tie.
  const hinted = await anthropic.messages.create({ model: 't/anthropic-like', max_tokens: 32_000, output_config: { effort: 'xhigh' as never }, messages: [{ role: 'user', content: 'hi' }] });
  t.is(hinted.stop_reason, 'end_turn');
});
