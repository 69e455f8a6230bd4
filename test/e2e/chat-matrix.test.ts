// Every client dialect (official SDKs) × every upstream kind (real adapters, simulator over
// HTTP): plain text streamed and not, parallel tool calls with a tool-result turn, an image
// in; and for each call the ledger holds exactly the charge computed from the catalog prices
// and the usage the client was told, with no hold left behind.
import Anthropic from '@anthropic-ai/sdk';
import type { ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, upstreamKinds, type UpstreamKind } from '../helpers/chat-gateway.js';

const tools = [
  { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_time', description: 'Local time in a city', parameters: { type: 'object', properties: { city: { type: 'string' }, utc: { type: 'boolean' } }, required: ['city', 'utc'] } },
];
const tinyPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

interface Usage3 {
  input: number;
  cached: number;
  output: number;
}

async function setup(t: ExecutionContext, database: TestDatabase) {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n }); // 1000 RUB
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  /** The newest charge must equal the usage the client saw, priced independently; no hold may remain. */
  const assertCharged = async (usage: Usage3, label: string) => {
    await gateway.services.usageRecords.flush();
    const charge = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).orderBy('id', 'desc').first();
    t.truthy(charge, `${label}: a charge was written`);
    t.is(-BigInt(charge.amount_units), expectedChargeUnits(usage), `${label}: charge matches usage ${JSON.stringify(usage)}`);
    const active = await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first();
    t.is(Number(active!.n), 0, `${label}: no hold left`);
  };
  return { gateway, openai, anthropic, assertCharged };
}

const chatUsage = (u: any): Usage3 => ({ input: u.prompt_tokens, cached: u.prompt_tokens_details?.cached_tokens ?? 0, output: u.completion_tokens });
const responsesUsage = (u: any): Usage3 => ({ input: u.input_tokens, cached: u.input_tokens_details?.cached_tokens ?? 0, output: u.output_tokens });
const messagesUsage = (u: any): Usage3 => ({
  input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
  cached: u.cache_read_input_tokens ?? 0,
  output: u.output_tokens,
});

for (const kind of upstreamKinds) {
  const model = `${kind}/chat`;

  testOnBackends(`chat-completions over ${kind}: text, stream = non-stream, tools round trip, image`, async (t, database) => {
    const { openai, assertCharged } = await setup(t, database);
    const messages = [{ role: 'user' as const, content: 'Hello there, gateway' }];
    const plain = await openai.chat.completions.create({ model, messages });
    t.is(plain.object, 'chat.completion');
    t.is(plain.model, model);
    t.regex(plain.choices[0]!.message.content!, /Simulated answer/);
    t.is(plain.choices[0]!.finish_reason, 'stop');
    await assertCharged(chatUsage(plain.usage), 'non-stream');

    const streamed = await openai.chat.completions.stream({ model, messages, stream_options: { include_usage: true } }).finalChatCompletion();
    t.is(streamed.choices[0]!.message.content, plain.choices[0]!.message.content);
    t.deepEqual(chatUsage(streamed.usage), chatUsage(plain.usage), 'stream and non-stream report the same usage');
    await assertCharged(chatUsage(streamed.usage), 'stream');

    const withTools = { model, messages: [{ role: 'user' as const, content: 'Weather and time in Paris?' }], tools: tools.map((f) => ({ type: 'function' as const, function: f })) };
    const calls = await openai.chat.completions.stream({ ...withTools, stream_options: { include_usage: true } }).finalChatCompletion();
    const toolCalls = calls.choices[0]!.message.tool_calls!;
    t.is(calls.choices[0]!.finish_reason, 'tool_calls');
    t.deepEqual(toolCalls.map((c: any) => c.function.name), ['get_weather', 'get_time']);
    t.deepEqual(JSON.parse((toolCalls[1] as any).function.arguments), { city: 'sim', utc: true });
    await assertCharged(chatUsage(calls.usage), 'tool calls');
    const answer = await openai.chat.completions.create({
      ...withTools,
      messages: [
        ...withTools.messages,
        calls.choices[0]!.message as any,
        ...toolCalls.map((c: any) => ({ role: 'tool' as const, tool_call_id: c.id, content: `result of ${c.function.name}` })),
      ],
    });
    t.is(answer.choices[0]!.finish_reason, 'stop');
    t.regex(answer.choices[0]!.message.content!, /result of get_weather/);
    await assertCharged(chatUsage(answer.usage), 'tool result turn');

    const image = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${tinyPng}` } }] }],
    });
    t.regex(image.choices[0]!.message.content!, /I see 1 image/);
    await assertCharged(chatUsage(image.usage), 'image');
  });

  testOnBackends(`responses over ${kind}: text, stream = non-stream, tools round trip`, async (t, database) => {
    const { openai, assertCharged } = await setup(t, database);
    const plain = await openai.responses.create({ model, input: 'Hello there, gateway' });
    t.is(plain.object, 'response');
    t.regex(plain.output_text, /Simulated answer/);
    await assertCharged(responsesUsage(plain.usage), 'non-stream');
    const streamed = await openai.responses.stream({ model, input: 'Hello there, gateway' }).finalResponse();
    t.is(streamed.output_text, plain.output_text);
    t.deepEqual(responsesUsage(streamed.usage), responsesUsage(plain.usage));
    await assertCharged(responsesUsage(streamed.usage), 'stream');

    const functionTools = tools.map((f) => ({ type: 'function' as const, name: f.name, description: f.description, parameters: f.parameters, strict: false }));
    const calls = await openai.responses.stream({ model, input: 'Weather and time in Paris?', tools: functionTools }).finalResponse();
    const functionCalls = calls.output.filter((item: any) => item.type === 'function_call') as any[];
    t.deepEqual(functionCalls.map((c) => c.name), ['get_weather', 'get_time']);
    await assertCharged(responsesUsage(calls.usage), 'tool calls');
    const answer = await openai.responses.create({
      model,
      tools: functionTools,
      input: [
        { role: 'user', content: 'Weather and time in Paris?' },
        ...(calls.output as any[]),
        ...functionCalls.map((c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: `result of ${c.name}` })),
      ],
    });
    t.regex(answer.output_text, /result of get_time/);
    await assertCharged(responsesUsage(answer.usage), 'tool result turn');
  });

  testOnBackends(`messages over ${kind}: text, stream = non-stream, tools round trip, image`, async (t, database) => {
    const { anthropic, assertCharged } = await setup(t, database);
    const messages = [{ role: 'user' as const, content: 'Hello there, gateway' }];
    const plain = await anthropic.messages.create({ model, max_tokens: 1024, messages });
    t.is(plain.type, 'message');
    t.is(plain.stop_reason, 'end_turn');
    t.regex((plain.content[0] as any).text, /Simulated answer/);
    await assertCharged(messagesUsage(plain.usage), 'non-stream');
    const streamed = await anthropic.messages.stream({ model, max_tokens: 1024, messages }).finalMessage();
    t.is((streamed.content[0] as any).text, (plain.content[0] as any).text);
    t.deepEqual(messagesUsage(streamed.usage), messagesUsage(plain.usage));
    await assertCharged(messagesUsage(streamed.usage), 'stream');

    const anthropicTools = tools.map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters as any }));
    const question = { role: 'user' as const, content: 'Weather and time in Paris?' };
    const calls = await anthropic.messages.stream({ model, max_tokens: 1024, messages: [question], tools: anthropicTools }).finalMessage();
    t.is(calls.stop_reason, 'tool_use');
    const uses = calls.content.filter((b: any) => b.type === 'tool_use') as any[];
    t.deepEqual(uses.map((u) => u.name), ['get_weather', 'get_time']);
    t.deepEqual(uses[1].input, { city: 'sim', utc: true });
    await assertCharged(messagesUsage(calls.usage), 'tool calls');
    const answer = await anthropic.messages.create({
      model,
      max_tokens: 1024,
      tools: anthropicTools,
      messages: [question, { role: 'assistant', content: calls.content as any }, { role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: `result of ${u.name}` })) }],
    });
    t.is(answer.stop_reason, 'end_turn');
    t.regex((answer.content[0] as any).text, /result of get_weather/);
    await assertCharged(messagesUsage(answer.usage), 'tool result turn');

    const image = await anthropic.messages.create({
      model,
      max_tokens: 512,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: tinyPng } }, { type: 'text', text: 'What is this?' }] }],
    });
    t.regex((image.content[0] as any).text, /I see 1 image/);
    await assertCharged(messagesUsage(image.usage), 'image');
  });
}

// Thinking with signatures: only upstreams that sign reasoning (Anthropic protocol: `anthropic`
// and the built-in `sim`) can carry it; the simulator rejects a tampered or missing signature.
for (const kind of ['sim', 'anthropic'] as UpstreamKind[]) {
  const model = `${kind}/reasoning`;
  const anthropicTools = tools.map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters as any }));

  testOnBackends(`thinking signatures survive a tool conversation over ${kind} in all three dialects`, async (t, database) => {
    const { openai, anthropic, assertCharged } = await setup(t, database);

    // messages ⇄ anthropic-protocol upstream
    const question = { role: 'user' as const, content: 'Weather in Paris? Think first.' };
    const first = await anthropic.messages.stream({ model, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, tools: anthropicTools, messages: [question] }).finalMessage();
    t.is(first.content[0]!.type, 'thinking');
    t.truthy((first.content[0] as any).signature);
    await assertCharged(messagesUsage(first.usage), 'messages thinking');
    const uses = first.content.filter((b: any) => b.type === 'tool_use') as any[];
    const second = await anthropic.messages.create({
      model,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: anthropicTools,
      messages: [question, { role: 'assistant', content: first.content as any }, { role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: 'sunny' })) }],
    });
    t.is(second.stop_reason, 'end_turn', 'the upstream accepted the signed thinking block back');

    // chat-completions: reasoning_details carry the signature back
    const chatTools = tools.map((f) => ({ type: 'function' as const, function: f }));
    const chatFirst = await openai.chat.completions.create({ model, reasoning_effort: 'low', tools: chatTools, messages: [question] });
    const chatMessage = chatFirst.choices[0]!.message as any;
    t.truthy(chatMessage.reasoning_details?.[0]?.signature, 'chat-completions exposes the signature in reasoning_details');
    await assertCharged(chatUsage(chatFirst.usage), 'chat thinking');
    const chatSecond = await openai.chat.completions.create({
      model,
      reasoning_effort: 'low',
      tools: chatTools,
      messages: [question, chatMessage, ...chatMessage.tool_calls.map((c: any) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'sunny' }))],
    });
    t.is(chatSecond.choices[0]!.finish_reason, 'stop');

    // responses: reasoning items carry the signature as encrypted_content
    const responseTools = tools.map((f) => ({ type: 'function' as const, name: f.name, parameters: f.parameters, strict: false }));
    const respFirst = await openai.responses.stream({ model, reasoning: { effort: 'low' }, tools: responseTools, input: question.content }).finalResponse();
    const reasoningItem = respFirst.output.find((item: any) => item.type === 'reasoning') as any;
    t.truthy(reasoningItem?.encrypted_content);
    const respCalls = respFirst.output.filter((item: any) => item.type === 'function_call') as any[];
    const respSecond = await openai.responses.create({
      model,
      reasoning: { effort: 'low' },
      tools: responseTools,
      input: [{ role: 'user', content: question.content }, ...(respFirst.output as any[]), ...respCalls.map((c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: 'sunny' }))],
    });
    t.is(respSecond.status, 'completed');
  });
}
