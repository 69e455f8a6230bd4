// Bedrock end to end: a gateway whose `bedrock` provider (region eu-central-1, an access key
// pair) points at the simulator's Bedrock runtime, called with the official OpenAI and
// Anthropic SDKs, streamed and not. Each answer is charged exactly the catalog price of the
// usage the simulated Bedrock reported (the simulator records each request it got with the
// usage it answered), and every request the gateway sent carries a valid SigV4 signature for
// the configured region and key (recomputed by an independent helper). On SQLite and PostgreSQL.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startSimulator } from '../../src/sim/server.js';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, testPrices } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';
import { sigV4Problems, type SignedRequest } from '../helpers/sigv4.js';
import type { ExecutionContext } from 'ava';
import { testClock } from '../helpers/clock.js';

const keys = { accessKeyId: 'AKIAGATEWAYTEST00001', secretAccessKey: 'gateway-test/secret+access+key' };
const region = 'eu-central-1';
const claude = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

interface ConverseUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

interface SentRequest extends SignedRequest {
  readonly usage?: ConverseUsage;
}

async function startBedrockGateway(t: ExecutionContext, database: TestDatabase, now?: () => number) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const model = (id: string, upstream: string, capabilities: Record<string, unknown>) => ({ id, name: id, type: 'text', route: { provider: 'aws', model: upstream }, pricing: testPrices, capabilities });
  const gateway = await startChatGateway(t, database, {
    providers: { aws: { kind: 'bedrock', base_url: `${simulator.url}/bedrock`, region, access_key_id_env: 'TEST_AWS_ACCESS_KEY_ID', secret_access_key_env: 'TEST_AWS_SECRET_ACCESS_KEY' } },
    models: [
      model('bedrock/claude', claude, { tools: true, vision: true, reasoning_efforts: ['low', 'medium', 'high'], can_disable_reasoning: true, max_output_tokens: 32000 }),
      model('bedrock/nova', 'amazon.nova-lite-v1:0', { tools: true, vision: true, max_output_tokens: 5000 }),
      model('bedrock/llama', 'meta.llama3-3-70b-instruct-v1:0', { tools: true, max_output_tokens: 2048 }),
    ],
    env: { TEST_AWS_ACCESS_KEY_ID: keys.accessKeyId, TEST_AWS_SECRET_ACCESS_KEY: keys.secretAccessKey },
    now,
  });
  /** The requests the gateway sent to the simulated Bedrock, oldest first, with the usage each was answered. */
  const sent = async (): Promise<SentRequest[]> => ((await (await fetch(`${simulator.url}/bedrock/__sim/requests`)).json()) as { requests: SentRequest[] }).requests;
  return { gateway, sent };
}

/** All input tokens of a Converse usage: inputTokens counts neither cache reads nor writes. */
const inputOf = (usage: ConverseUsage) => usage.inputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);

/** The exact charge of a Converse usage at the test prices (cache writes at the input price). */
const chargeOf = (usage: ConverseUsage) => expectedChargeUnits({ input: inputOf(usage), cached: usage.cacheReadInputTokens ?? 0, output: usage.outputTokens });

/** The one usage record of the account, once written. */
async function usageRecord(gateway: Awaited<ReturnType<typeof startChatGateway>>, database: TestDatabase, accountId: string, count = 1) {
  return eventually(
    async () => {
      await gateway.services.usageRecords.flush();
      const rows = await database.db('usage_records').where({ account_id: accountId }).orderBy('created_at');
      return rows.length >= count ? rows : undefined;
    },
    { what: 'the usage records', intervalMs: 20 },
  );
}

/** Two records may share a timestamp: compared as sorted lists. */
const sorted = (values: bigint[]) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const costsOf = (records: { cost_units: string | number }[]) => sorted(records.map((record) => BigInt(record.cost_units)));

async function charged(gateway: Awaited<ReturnType<typeof startChatGateway>>, accountId: string, startUnits: bigint): Promise<bigint> {
  const balance = await gateway.services.ledger.balance(accountId);
  return startUnits - balance.balanceUnits;
}

testOnBackends('OpenAI SDK, not streamed, to Nova: charged exactly the price of the usage Bedrock reported, signed for the region', async (t, database) => {
  const { gateway, sent } = await startBedrockGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const answer = await openai.chat.completions.create({ model: 'bedrock/nova', max_tokens: 200, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What is Bedrock?' }] });
  t.true(answer.choices[0]!.message.content!.startsWith('Simulated answer to "What is Bedrock?"'));
  t.is(answer.choices[0]!.finish_reason, 'stop');

  const [request] = await sent();
  t.is(request!.path, '/bedrock/model/amazon.nova-lite-v1%3A0/converse-stream');
  t.deepEqual(sigV4Problems(request!, { ...keys, region }), []);
  // Nova: the system prompt ends with a cache point, which this first request wrote (3 tokens
  // of framing + ceil(9 / 4)); a write is billed as input.
  const usage = request!.usage!;
  t.deepEqual({ read: usage.cacheReadInputTokens, write: usage.cacheWriteInputTokens }, { read: 0, write: 6 });
  t.like(answer.usage, { prompt_tokens: inputOf(usage), completion_tokens: usage.outputTokens, total_tokens: inputOf(usage) + usage.outputTokens, prompt_tokens_details: { cached_tokens: 0 } });
  const [record] = await usageRecord(gateway, database, accountId);
  t.is(BigInt(record.cost_units), chargeOf(usage));
  t.is(await charged(gateway, accountId, 1_000_000n), chargeOf(usage));
  t.true(chargeOf(usage) > 0n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('OpenAI SDK, streamed, to Llama: usage in the last chunk, charged exactly for it', async (t, database) => {
  const { gateway, sent } = await startBedrockGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const stream = await openai.chat.completions.create({
    model: 'bedrock/llama',
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 300,
    stop: ['never-appears'],
    messages: [{ role: 'user', content: 'Stream me a story [[sim:tokens=60]]' }],
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    usage = chunk.usage ?? usage;
  }
  const [request] = await sent();
  t.deepEqual(sigV4Problems(request!, { ...keys, region }), []);
  const body = JSON.parse(request!.body) as Record<string, unknown>;
  // Llama: no cache points, no thinking, no stop-sequence field path.
  t.deepEqual(body, { messages: [{ role: 'user', content: [{ text: 'Stream me a story [[sim:tokens=60]]' }] }], inferenceConfig: { maxTokens: 300, stopSequences: ['never-appears'] } });
  const upstream = request!.usage!;
  t.deepEqual(upstream, { inputTokens: 3 + Math.ceil('Stream me a story [[sim:tokens=60]]'.length / 4), outputTokens: 60, totalTokens: 12 + 60 });
  t.true(text.startsWith('Simulated answer to "Stream me a story"'));
  t.like(usage, { prompt_tokens: upstream.inputTokens, completion_tokens: 60 });
  const [record] = await usageRecord(gateway, database, accountId);
  t.is(BigInt(record.cost_units), chargeOf(upstream));
  t.is(await charged(gateway, accountId, 1_000_000n), chargeOf(upstream));
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('Anthropic SDK to Claude on Bedrock: thinking with its signature, streamed and not; a prompt-cache read is charged at the cached price', async (t, database) => {
  const { gateway, sent } = await startBedrockGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const system = 'You are a meticulous assistant who answers in full sentences. '.repeat(30);
  const systemTokens = 3 + Math.ceil(system.length / 4);
  const ask = { model: 'bedrock/claude', max_tokens: 4000, system, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: 'Why is the sky blue?' }] };

  const whole = await anthropic.messages.create(ask);
  t.is(whole.content[0]!.type, 'thinking');
  t.true((whole.content[0] as Anthropic.ThinkingBlock).thinking.startsWith('Considering: Why is the sky blue?'));
  t.true((whole.content[0] as Anthropic.ThinkingBlock).signature.length > 0);
  t.is(whole.content[1]!.type, 'text');
  const first = (await sent())[0]!;
  t.deepEqual(sigV4Problems(first, { ...keys, region }), []);
  // The client's budget is read as an effort (low), which the shared table turns into 2048.
  t.deepEqual((JSON.parse(first.body) as Record<string, unknown>).additionalModelRequestFields, { thinking: { type: 'enabled', budget_tokens: 2048 } });
  t.deepEqual({ read: first.usage!.cacheReadInputTokens, write: first.usage!.cacheWriteInputTokens }, { read: 0, write: systemTokens });
  t.like(whole.usage, { input_tokens: first.usage!.inputTokens, cache_creation_input_tokens: systemTokens, cache_read_input_tokens: 0, output_tokens: first.usage!.outputTokens });

  // The same question streamed: the system prompt is read from the cache now, and the
  // signed reasoning of the first answer is not needed (a new question).
  const streamed = await anthropic.messages.stream(ask).finalMessage();
  t.is(streamed.content[0]!.type, 'thinking');
  const second = (await sent())[1]!;
  t.deepEqual(sigV4Problems(second, { ...keys, region }), []);
  t.deepEqual({ read: second.usage!.cacheReadInputTokens, write: second.usage!.cacheWriteInputTokens }, { read: systemTokens, write: 0 });
  t.like(streamed.usage, { input_tokens: second.usage!.inputTokens, cache_read_input_tokens: systemTokens, cache_creation_input_tokens: 0, output_tokens: second.usage!.outputTokens });

  const records = await usageRecord(gateway, database, accountId, 2);
  const expected = [chargeOf(first.usage!), chargeOf(second.usage!)];
  t.deepEqual(costsOf(records), sorted(expected));
  t.true(expected[1]! < expected[0]!, 'the cached read is cheaper');
  t.is(await charged(gateway, accountId, 10_000_000n), expected[0]! + expected[1]!);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('tools through Bedrock: the call comes back to the OpenAI SDK, its result goes up paired, and both turns are charged', async (t, database) => {
  const { gateway, sent } = await startBedrockGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
  const call = await openai.chat.completions.create({ model: 'bedrock/claude', max_tokens: 500, tools, messages });
  t.is(call.choices[0]!.finish_reason, 'tool_calls');
  const toolCall = call.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
  t.is(toolCall.function.name, 'get_weather');
  t.regex(toolCall.id, /^tooluse_/);
  t.deepEqual(Object.keys(JSON.parse(toolCall.function.arguments) as object), ['city']);
  const answer = await openai.chat.completions.create({
    model: 'bedrock/claude',
    max_tokens: 500,
    tools,
    messages: [...messages, call.choices[0]!.message, { role: 'tool', tool_call_id: toolCall.id, content: '18 C and sunny' }],
  });
  t.true(answer.choices[0]!.message.content!.startsWith('Tool results: 18 C and sunny'));
  const requests = await sent();
  t.is(requests.length, 2);
  for (const request of requests) t.deepEqual(sigV4Problems(request, { ...keys, region }), []);
  const records = await usageRecord(gateway, database, accountId, 2);
  const expected = requests.map((request) => chargeOf(request.usage!));
  t.deepEqual(costsOf(records), sorted(expected));
  t.is(await charged(gateway, accountId, 1_000_000n), expected[0]! + expected[1]!);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a throttled Bedrock answer pauses its route for a while and costs nothing; a provider without its keys is disabled', async (t, database) => {
  const clock = testClock();
  const { gateway } = await startBedrockGateway(t, database, clock.now);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const throttled = (await t.throwsAsync(openai.chat.completions.create({ model: 'bedrock/nova', max_tokens: 50, messages: [{ role: 'user', content: 'Hi [[sim:status=429]]' }] }))) as InstanceType<typeof OpenAI.APIError>;
  t.is(throttled.status, 502);
  // Bedrock sends no Retry-After: the route rests for the adapter's fixed 3 s.
  t.is(throttled.headers?.get('retry-after'), '3');
  const paused = (await t.throwsAsync(openai.chat.completions.create({ model: 'bedrock/nova', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }))) as InstanceType<typeof OpenAI.APIError>;
  t.regex(paused.message, /asked for a pause/);
  clock.advance(3_000);
  const after = await openai.chat.completions.create({ model: 'bedrock/nova', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] });
  t.is(after.choices[0]!.finish_reason, 'stop');
  t.is((await gateway.services.ledger.balance(accountId)).heldUnits, 0n);

  // The same catalog with the access key's variable unset: the provider, and so its models, are off.
  const keyless = await startChatGateway(t, database, {
    providers: { aws: { kind: 'bedrock', region, access_key_id_env: 'TEST_AWS_UNSET_KEY_ID', secret_access_key_env: 'TEST_AWS_SECRET_ACCESS_KEY' } },
    models: [{ id: 'bedrock/nova', name: 'nova', type: 'text', route: { provider: 'aws', model: 'amazon.nova-lite-v1:0' }, pricing: testPrices, capabilities: { max_output_tokens: 5000 } }],
    env: { TEST_AWS_SECRET_ACCESS_KEY: keys.secretAccessKey },
  });
  const listed = await fetch(`${keyless.url}/v1/models`, { headers: { authorization: `Bearer ${(await keyless.newClient()).key}` } });
  const ids = ((await listed.json()) as { data: { id: string }[] }).data.map((model) => model.id);
  t.true(ids.includes('sim/chat'));
  t.false(ids.includes('bedrock/nova'));
});

testOnBackends('an exception in the middle of the event stream fails the answer, which is charged for what was delivered', async (t, database) => {
  const { gateway } = await startBedrockGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const stream = anthropic.messages.stream({ model: 'bedrock/claude', max_tokens: 1024, messages: [{ role: 'user', content: 'Go [[sim:fail-mid]] [[sim:tokens=60]]' }] });
  let text = '';
  stream.on('text', (delta) => (text += delta));
  await t.throwsAsync(stream.finalMessage());
  t.true(text.length > 0, 'part of the answer arrived first');
  const [record] = await usageRecord(gateway, database, accountId);
  t.is(record.status, 'failed');
  t.true(record.output_tokens > 0 && record.output_tokens < 60, `${record.output_tokens} of the 60 tokens delivered`);
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.heldUnits, 0n);
  t.is(1_000_000n - balance.balanceUnits, BigInt(record.cost_units));
  await assertLedgerInvariants(t, database.db);
});
