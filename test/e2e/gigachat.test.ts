// GigaChat through the whole gateway: a provider of kind `gigachat` pointed at the simulator's
// /gigachat prefix, whose OAuth endpoint issues 30-minute tokens (and counts them) and whose
// chat and embeddings refuse any other token. The official SDKs call the gateway; each answer
// is charged exactly for the usage the simulated vendor reported.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ExecutionContext } from 'ava';
import { startSimulator } from '../../src/sim/server.js';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, testPrices } from '../helpers/chat-gateway.js';

async function setup(t: ExecutionContext, database: TestDatabase) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const base = `${simulator.url}/gigachat`;
  const gateway = await startChatGateway(t, database, {
    providers: { gigachat: { kind: 'gigachat', base_url: base, api_key_env: 'TEST_GIGACHAT_KEY', scope: 'GIGACHAT_API_CORP', auth_url: `${base}/api/v2/oauth` } },
    models: [
      { id: 'gigachat/max', name: 'GigaChat 2 Max', type: 'text', route: { provider: 'gigachat', model: 'GigaChat-2-Max' }, pricing: testPrices, capabilities: { tools: true, max_output_tokens: 8192 } },
      { id: 'gigachat/embeddings', name: 'GigaChat Embeddings', type: 'embeddings', route: { provider: 'gigachat', model: 'Embeddings' }, pricing: { per_1m_input_tokens: '40.00' }, capabilities: { dimensions: 1024 } },
    ],
    env: { TEST_GIGACHAT_KEY: Buffer.from('client-id:client-secret').toString('base64') },
  });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const charges = async () =>
    (await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'asc')).map((row: any) => -BigInt(row.amount_units));
  const tokensIssued = async () => ((await (await fetch(`${base}/__stats`)).json()) as { tokens_issued: number }).tokens_issued;
  return {
    gateway,
    client,
    charges,
    tokensIssued,
    openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: gateway.url, apiKey: client.key, maxRetries: 0 }),
  };
}

testOnBackends('GigaChat through the OpenAI SDK, whole and streamed: one token exchange serves both, each charged exactly', async (t, database) => {
  const { openai, charges, tokensIssued, gateway, client } = await setup(t, database);
  t.is(await tokensIssued(), 0);
  const messages = [{ role: 'user' as const, content: 'Tell me about Sochi' }];
  const whole = await openai.chat.completions.create({ model: 'gigachat/max', messages });
  const text = whole.choices[0]!.message.content!;
  t.true(text.startsWith('Simulated answer to "Tell me about Sochi": '), text);
  // One message: 3 + "Tell me about Sochi" 5; the answer is 20 tokens.
  t.deepEqual([whole.usage!.prompt_tokens, whole.usage!.completion_tokens], [8, 20]);
  const stream = await openai.chat.completions.create({ model: 'gigachat/max', messages, stream: true, stream_options: { include_usage: true } });
  let streamed = '';
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta.content ?? '';
    usage = chunk.usage ?? usage;
  }
  t.is(streamed, text);
  t.deepEqual([usage!.prompt_tokens, usage!.completion_tokens], [8, 20]);
  t.is(await tokensIssued(), 1, "the second request reused the first one's access token");
  const expected = expectedChargeUnits({ input: 8, cached: 0, output: 20 });
  t.is(expected, 9n, '8 × 10 + 20 × 40 RUB per 1M tokens = 0.00088 RUB, rounded up to 0.0009');
  t.deepEqual(await charges(), [expected, expected]);
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('GigaChat through the Anthropic SDK, whole and streamed, charged exactly', async (t, database) => {
  const { anthropic, charges, tokensIssued } = await setup(t, database);
  const request = { model: 'gigachat/max', max_tokens: 500, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'Tell me about Sochi [[sim:tokens=30]]' }] };
  const whole = await anthropic.messages.create(request);
  t.is(whole.stop_reason, 'end_turn');
  t.is(whole.usage.output_tokens, 30);
  const final = await anthropic.messages.stream(request).finalMessage();
  t.deepEqual(final.content, whole.content);
  t.deepEqual([final.usage.input_tokens, final.usage.output_tokens], [whole.usage.input_tokens, 30]);
  const expected = expectedChargeUnits({ input: whole.usage.input_tokens, cached: 0, output: 30 });
  t.deepEqual(await charges(), [expected, expected]);
  t.is(await tokensIssued(), 1);
});

testOnBackends('GigaChat functions: a function_call comes back as a tool call, its result goes up as a function message', async (t, database) => {
  const { openai, charges } = await setup(t, database);
  const tools = [{ type: 'function' as const, function: { name: 'weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
  const first = await openai.chat.completions.create({ model: 'gigachat/max', messages: [{ role: 'user', content: 'Weather in Sochi?' }], tools });
  t.is(first.choices[0]!.finish_reason, 'tool_calls');
  const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
  t.is(call.function.name, 'weather');
  t.deepEqual(JSON.parse(call.function.arguments), { city: 'sim' });
  t.regex(call.id, /^call_[0-9a-f]{24}$/);
  const second = await openai.chat.completions.create({
    model: 'gigachat/max',
    messages: [
      { role: 'user', content: 'Weather in Sochi?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      // Not JSON: sent up wrapped as {"result": "..."}, which GigaChat requires.
      { role: 'tool', tool_call_id: call.id, content: 'sunny, +18' },
    ],
    tools,
  });
  t.is(second.choices[0]!.message.content!.split('. ')[0], 'Tool results: {"result":"sunny, +18"}');
  t.deepEqual(await charges(), [
    expectedChargeUnits({ input: first.usage!.prompt_tokens, cached: 0, output: first.usage!.completion_tokens }),
    expectedChargeUnits({ input: second.usage!.prompt_tokens, cached: 0, output: second.usage!.completion_tokens }),
  ]);
});

testOnBackends('GigaChat embeddings: 1024-dimension vectors, charged for the tokens GigaChat counted per input', async (t, database) => {
  const { openai, charges, tokensIssued } = await setup(t, database);
  const answer = await openai.embeddings.create({ model: 'gigachat/embeddings', input: ['first text', 'the second, longer text'] });
  t.is(answer.data.length, 2);
  t.is(answer.data[0]!.embedding.length, 1024);
  // "first text" 3 tokens + "the second, longer text" 6 tokens.
  t.is(answer.usage.prompt_tokens, 9);
  t.deepEqual(await charges(), [4n], '9 × 40 RUB per 1M tokens = 0.00036 RUB, rounded up to 0.0004');
  t.is(await tokensIssued(), 1);
});

testOnBackends('GigaChat structured output: asked through a forced function, answered as JSON text, charged exactly', async (t, database) => {
  const { openai, charges } = await setup(t, database);
  const schema = { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city', 'population'], additionalProperties: false };
  const response_format = { type: 'json_schema' as const, json_schema: { name: 'capital', schema, strict: true } };
  const messages = [{ role: 'user' as const, content: 'The capital of Russia?' }];
  const whole = await openai.chat.completions.create({ model: 'gigachat/max', messages, response_format });
  t.deepEqual(JSON.parse(whole.choices[0]!.message.content!), { city: 'sim', population: 1 });
  t.is(whole.choices[0]!.finish_reason, 'stop');
  t.is(whole.choices[0]!.message.tool_calls, undefined);
  const stream = await openai.chat.completions.create({ model: 'gigachat/max', messages, response_format, stream: true, stream_options: { include_usage: true } });
  let streamed = '';
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta.content ?? '';
    usage = chunk.usage ?? usage;
  }
  t.is(streamed, whole.choices[0]!.message.content!);
  t.deepEqual(usage, whole.usage);
  const expected = expectedChargeUnits({ input: whole.usage!.prompt_tokens, cached: 0, output: whole.usage!.completion_tokens });
  t.deepEqual(await charges(), [expected, expected]);
});
