// YandexGPT and YandexART through the whole gateway: a provider of kind `yandex` pointed at the
// simulator's /yandex prefix (its completion streams cumulative text as JSON lines; YandexART
// answers an operation polled on the operations host). The official SDKs call the gateway;
// each answer is charged exactly for the usage the simulated vendor reported.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { priceInUnits } from '../../src/billing/pricing.js';
import { startSimulator } from '../../src/sim/server.js';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, testPrices } from '../helpers/chat-gateway.js';
import type { ExecutionContext } from 'ava';

async function setup(t: ExecutionContext, database: TestDatabase) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const yandexBase = `${simulator.url}/yandex`;
  const gateway = await startChatGateway(t, database, {
    providers: { yandex: { kind: 'yandex', base_url: yandexBase, api_key_env: 'TEST_YANDEX_KEY', folder_id: 'b1gsimfolder', operations_url: yandexBase } },
    models: [
      { id: 'yandex/pro', name: 'YandexGPT Pro', type: 'text', route: { provider: 'yandex', model: 'yandexgpt/latest' }, pricing: testPrices, capabilities: { tools: true, max_output_tokens: 8000 } },
      {
        id: 'yandex/pro-reasoning',
        name: 'YandexGPT Pro reasoning',
        type: 'text',
        route: { provider: 'yandex', model: 'yandexgpt/latest' },
        pricing: testPrices,
        capabilities: { tools: true, max_output_tokens: 8000, reasoning_efforts: ['high'], can_disable_reasoning: true },
      },
      { id: 'yandex/art', name: 'YandexART', type: 'image', route: { provider: 'yandex', model: 'yandex-art/latest' }, pricing: { per_image: '2.20' }, capabilities: { sizes: ['1024x1024', '1344x768'], formats: ['png', 'jpeg'] } },
    ],
    env: { TEST_YANDEX_KEY: 'AQVN-sim-key' },
  });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const charges = async () =>
    (await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'asc')).map((row: any) => -BigInt(row.amount_units));
  return {
    gateway,
    client,
    charges,
    openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: gateway.url, apiKey: client.key, maxRetries: 0 }),
  };
}

const lead = 'Simulated answer to "Tell me about Kazan": ';

testOnBackends('YandexGPT through the OpenAI SDK, whole and streamed: the cumulative lines become one text, charged exactly for the reported usage', async (t, database) => {
  const { openai, charges, gateway, client } = await setup(t, database);
  const messages = [{ role: 'system' as const, content: 'Answer briefly.' }, { role: 'user' as const, content: 'Tell me about Kazan' }];
  const whole = await openai.chat.completions.create({ model: 'yandex/pro', messages, max_tokens: 200 });
  const text = whole.choices[0]!.message.content!;
  t.true(text.startsWith(lead), text);
  t.is(text.split('Simulated answer').length, 2, 'the text is not repeated: only the new part of each line was sent on');
  t.is(whole.choices[0]!.finish_reason, 'stop');
  // 2 messages × 3 + "Answer briefly." 4 + "Tell me about Kazan" 5; the answer is 20 tokens.
  t.deepEqual([whole.usage!.prompt_tokens, whole.usage!.completion_tokens], [15, 20]);

  const stream = await openai.chat.completions.create({ model: 'yandex/pro', messages, max_tokens: 200, stream: true, stream_options: { include_usage: true } });
  let streamed = '';
  let usage: OpenAI.CompletionUsage | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta.content ?? '';
    if (chunk.choices[0]?.delta.content) chunks++;
    usage = chunk.usage ?? usage;
  }
  t.is(streamed, text, 'the stream carries the same text as the whole answer');
  t.true(chunks > 3, 'the text came in several deltas');
  t.deepEqual([usage!.prompt_tokens, usage!.completion_tokens], [15, 20]);

  const expected = expectedChargeUnits({ input: 15, cached: 0, output: 20 });
  t.deepEqual(await charges(), [expected, expected]);
  t.is(expected, 10n, '15 × 10 + 20 × 40 RUB per 1M tokens = 0.00095 RUB, rounded up to 0.0010');
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('YandexGPT through the Anthropic SDK, whole and streamed, charged exactly', async (t, database) => {
  const { anthropic, charges } = await setup(t, database);
  const request = { model: 'yandex/pro', max_tokens: 300, messages: [{ role: 'user' as const, content: 'Tell me about Kazan [[sim:tokens=40]]' }] };
  const whole = await anthropic.messages.create(request);
  const text = whole.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  t.true(text.startsWith(lead), text);
  t.is(whole.stop_reason, 'end_turn');
  t.is(whole.usage.output_tokens, 40);
  const stream = anthropic.messages.stream(request);
  const final = await stream.finalMessage();
  t.is(final.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), text);
  t.deepEqual([final.usage.input_tokens, final.usage.output_tokens], [whole.usage.input_tokens, 40]);
  const expected = expectedChargeUnits({ input: whole.usage.input_tokens, cached: 0, output: 40 });
  t.deepEqual(await charges(), [expected, expected]);
});

testOnBackends('YandexGPT tool calls: the call comes back with its arguments, the result goes up by function name, both charged', async (t, database) => {
  const { openai, charges } = await setup(t, database);
  const tools = [{ type: 'function' as const, function: { name: 'weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
  const first = await openai.chat.completions.create({ model: 'yandex/pro', messages: [{ role: 'user', content: 'Weather in Kazan?' }], tools, stream: true, stream_options: { include_usage: true } });
  const calls: { id: string; name: string; arguments: string }[] = [];
  let finish: string | null | undefined;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of first) {
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
      if (call.id) calls.push({ id: call.id, name: call.function?.name ?? '', arguments: '' });
      calls[calls.length - 1]!.arguments += call.function?.arguments ?? '';
    }
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  t.is(finish, 'tool_calls');
  t.is(calls.length, 1);
  t.is(calls[0]!.name, 'weather');
  t.deepEqual(JSON.parse(calls[0]!.arguments), { city: 'sim' });
  const second = await openai.chat.completions.create({
    model: 'yandex/pro',
    messages: [
      { role: 'user', content: 'Weather in Kazan?' },
      { role: 'assistant', content: null, tool_calls: [{ id: calls[0]!.id, type: 'function', function: { name: 'weather', arguments: calls[0]!.arguments } }] },
      { role: 'tool', tool_call_id: calls[0]!.id, content: '{"temperature": -5}' },
    ],
    tools,
  });
  t.true(second.choices[0]!.message.content!.startsWith('Tool results: {"temperature": -5}. '), second.choices[0]!.message.content!);
  t.deepEqual(await charges(), [
    expectedChargeUnits({ input: usage!.prompt_tokens, cached: 0, output: usage!.completion_tokens }),
    expectedChargeUnits({ input: second.usage!.prompt_tokens, cached: 0, output: second.usage!.completion_tokens }),
  ]);
});

testOnBackends('YandexGPT refusing with 429 in its own error shape: a retryable 502 asking to wait the cooldown, nothing charged', async (t, database) => {
  const { openai, charges, gateway, client } = await setup(t, database);
  const error = await t.throwsAsync(openai.chat.completions.create({ model: 'yandex/pro', messages: [{ role: 'user', content: 'Hi [[sim:status=429]]' }] }));
  t.true(error instanceof OpenAI.APIError);
  const apiError = error as InstanceType<typeof OpenAI.APIError>;
  t.is(apiError.status, 502);
  t.is(apiError.headers?.get('retry-after'), '1', 'Yandex sends no Retry-After: the one-second cooldown is passed on');
  t.is(apiError.headers?.get('x-should-retry'), 'true');
  t.true(apiError.message.includes('quota limit exceed'), apiError.message);
  t.deepEqual(await charges(), []);
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
});

testOnBackends('YandexART through /v1/images/generations: submitted, polled on the operations host, charged the per-image price', async (t, database) => {
  const { openai, charges, gateway, client } = await setup(t, database);
  const images = await openai.images.generate({ model: 'yandex/art', prompt: 'a lighthouse on the Volga', size: '1344x768' } as any);
  const png = Buffer.from(images.data![0]!.b64_json!, 'base64');
  t.is(png.subarray(1, 4).toString('latin1'), 'PNG');
  // 1344x768 is 7:4: the simulator draws 1024 pixels on the long side at that ratio.
  t.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1024, 585]);
  t.deepEqual(await charges(), [priceInUnits([{ quantity: 1, price: '2.20', per: 1 }])]);
  t.deepEqual(await charges(), [22_000n]);
  const history = await database.db('generations').where({ account_id: client.accountId, type: 'image' });
  t.is(history.length, 1);
  t.is(BigInt(history[0].charged_units), 22_000n);
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
});

testOnBackends('YandexGPT hidden reasoning and a JSON schema: reasoning tokens reported inside the output and charged as output', async (t, database) => {
  const { openai, charges } = await setup(t, database);
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const answer = await openai.chat.completions.create({
    model: 'yandex/pro-reasoning',
    reasoning_effort: 'high',
    messages: [{ role: 'user', content: 'Which city is the capital of Tatarstan?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
  });
  t.deepEqual(JSON.parse(answer.choices[0]!.message.content!), { city: 'sim' });
  // ENABLED_HIDDEN: 40 reasoning tokens in completionTokens, plus the JSON's 4.
  t.is(answer.usage!.completion_tokens_details?.reasoning_tokens, 40);
  t.is(answer.usage!.completion_tokens, 44);
  t.deepEqual(await charges(), [expectedChargeUnits({ input: answer.usage!.prompt_tokens, cached: 0, output: 44 })]);
});
