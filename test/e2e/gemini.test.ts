// Gemini through the whole gateway: providers of kind `gemini` point at the simulator's Gemini
// wire (`/gemini`), clients use the official OpenAI and Anthropic SDKs, and every request is
// charged exactly for the usage the simulated Gemini reported — read back from the simulator's
// own books (its usage API), not from the gateway — cached prompt tokens at the cached price,
// thought tokens as output. The Vertex test proves the service-account token is exchanged once
// and reused.
import { generateKeyPairSync } from 'node:crypto';
import { toFile } from 'openai';
import type { ExecutionContext } from 'ava';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, testPrices } from '../helpers/chat-gateway.js';
import { startSimulator } from '../../src/sim/server.js';
import { readMp4Info } from '../../src/media-files/mp4.js';
import { startGateway } from '../helpers/gateway.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { api, assertJobMoneySettled, charges } from '../helpers/jobs.js';

interface Reported {
  input: number;
  cached: number;
  output: number;
}

/** What the simulator has billed so far (all models), from its usage API. */
async function simulatorTotals(simulatorUrl: string, kind: 'completions' | 'embeddings' = 'completions'): Promise<Reported & { requests: number }> {
  const start = Math.floor(Date.now() / 1000) - 86_400;
  const response = await fetch(`${simulatorUrl}/v1/organization/usage/${kind}?start_time=${start}&bucket_width=1d&limit=2`);
  const page = (await response.json()) as { data: { results: { input_tokens: number; input_cached_tokens?: number; output_tokens?: number; num_model_requests: number }[] }[] };
  const totals = { input: 0, cached: 0, output: 0, requests: 0 };
  for (const bucket of page.data) {
    for (const result of bucket.results) {
      totals.input += result.input_tokens;
      totals.cached += result.input_cached_tokens ?? 0;
      totals.output += result.output_tokens ?? 0;
      totals.requests += result.num_model_requests;
    }
  }
  return totals;
}

/** Runs `call` and returns what the simulator reported for it (exactly one upstream request). */
async function reportedFor<T>(t: ExecutionContext, simulatorUrl: string, call: () => Promise<T>): Promise<{ value: T; reported: Reported }> {
  const before = await simulatorTotals(simulatorUrl);
  const value = await call();
  const after = await simulatorTotals(simulatorUrl);
  t.is(after.requests - before.requests, 1, 'one upstream request');
  return { value, reported: { input: after.input - before.input, cached: after.cached - before.cached, output: after.output - before.output } };
}

async function lastCharge(database: TestDatabase, accountId: string): Promise<bigint> {
  const charge = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).orderBy('id', 'desc').first();
  return -BigInt(charge.amount_units);
}

/** `env`: extra environment for the gateway, given the simulator's URL (a service account's token_uri names it). */
async function startGeminiGateway(t: ExecutionContext, database: TestDatabase, env: (simulatorUrl: string) => Record<string, string> = () => ({})) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const reasoning = { tools: true, vision: true, reasoning_efforts: ['minimal', 'low', 'medium', 'high'], can_disable_reasoning: true, max_output_tokens: 32768 };
  const gateway = await startChatGateway(t, database, {
    providers: {
      gemini: { kind: 'gemini', base_url: `${simulator.url}/gemini`, api_key_env: 'TEST_UPSTREAM_KEY' },
      vertex: { kind: 'gemini', base_url: `${simulator.url}/gemini`, auth: 'vertex', project: 'test-project', location: 'europe-west4', service_account_env: 'TEST_GEMINI_SERVICE_ACCOUNT' },
    },
    models: [
      { id: 'gemini/flash', name: 'Gemini 2.5 Flash', type: 'text', route: { provider: 'gemini', model: 'gemini-2.5-flash' }, pricing: testPrices, capabilities: reasoning },
      { id: 'gemini/pro-3', name: 'Gemini 3 Pro', type: 'text', route: { provider: 'gemini', model: 'gemini-3-pro-preview' }, pricing: testPrices, capabilities: { ...reasoning, reasoning_efforts: ['low', 'high'], can_disable_reasoning: false } },
      { id: 'gemini/search', name: 'Gemini grounded', type: 'search', route: { provider: 'gemini', model: 'gemini-2.5-flash-lite' }, pricing: testPrices, capabilities: { max_output_tokens: 4096 } },
      { id: 'gemini/embedding', name: 'Gemini Embedding', type: 'embeddings', route: { provider: 'gemini', model: 'gemini-embedding-001' }, pricing: { per_1m_input_tokens: '13.50' }, capabilities: { dimensions: 3072 } },
      {
        id: 'gemini/flash-image',
        name: 'Gemini 2.5 Flash Image',
        type: 'image',
        route: { provider: 'gemini', model: 'gemini-2.5-flash-image' },
        pricing: { per_image: '3.51' },
        capabilities: { references: true, max_references: 3, aspect_ratios: ['1:1', '16:9', '9:16'], resolutions: ['1K'], formats: ['png'] },
      },
      { id: 'vertex/imagen', name: 'Imagen 4 on Vertex', type: 'image', route: { provider: 'vertex', model: 'imagen-4.0-generate-001' }, pricing: { per_image: '3.60' }, capabilities: { sizes: ['1024x1024', '1536x1024'], formats: ['png'] } },
      { id: 'vertex/flash', name: 'Gemini 2.5 Flash on Vertex', type: 'text', route: { provider: 'vertex', model: 'gemini-2.5-flash' }, pricing: testPrices, capabilities: reasoning },
    ],
    env: env(simulator.url),
  });
  return { gateway, simulatorUrl: simulator.url };
}

const system = 'You are a meticulous assistant who answers questions about the weather. '.repeat(8);

testOnBackends('OpenAI SDK on Gemini: thought tokens billed as output, a repeated prefix billed at the cached price, streamed and not', async (t, database) => {
  const { gateway, simulatorUrl } = await startGeminiGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const conversation = (question: string) => [
    { role: 'system' as const, content: system },
    { role: 'user' as const, content: 'Is it raining in Paris?' },
    { role: 'assistant' as const, content: 'Not at the moment.' },
    { role: 'user' as const, content: question },
  ];

  const first = await reportedFor(t, simulatorUrl, () => openai.chat.completions.create({ model: 'gemini/flash', reasoning_effort: 'low', messages: conversation('And in Rome?') }));
  const answer = first.value;
  t.regex(answer.choices[0]!.message.content!, /^Simulated answer to "And in Rome\?": /);
  t.is(answer.choices[0]!.finish_reason, 'stop');
  // Effort low = a 2048-token budget; the simulated model thinks min(budget, 40) tokens.
  t.is(answer.usage!.completion_tokens_details!.reasoning_tokens, 40);
  t.deepEqual(first.reported, { input: answer.usage!.prompt_tokens, cached: 0, output: answer.usage!.completion_tokens });
  t.is(first.reported.output, 20 + 40, '20 answer tokens + 40 thought tokens');
  t.is(await lastCharge(database, accountId), expectedChargeUnits(first.reported));

  const second = await reportedFor(t, simulatorUrl, async () => {
    const stream = openai.chat.completions.stream({ model: 'gemini/flash', reasoning_effort: 'low', messages: conversation('And in Madrid?'), stream_options: { include_usage: true } });
    return stream.finalChatCompletion();
  });
  t.regex(second.value.choices[0]!.message.content!, /^Simulated answer to "And in Madrid\?": /);
  t.true(second.reported.cached > 0, 'the system prompt and first exchange were read from the cache');
  t.deepEqual(second.reported, { input: second.value.usage!.prompt_tokens, cached: second.value.usage!.prompt_tokens_details!.cached_tokens!, output: second.value.usage!.completion_tokens });
  t.is(await lastCharge(database, accountId), expectedChargeUnits(second.reported));
  t.true(expectedChargeUnits(second.reported) < expectedChargeUnits({ ...second.reported, cached: 0 }), 'cached tokens cost less');

  await gateway.services.usageRecords.flush();
  const records = await database.db('usage_records').where({ account_id: accountId }).orderBy('id');
  t.deepEqual(
    records.map((record) => [record.input_tokens, record.cached_input_tokens, record.output_tokens, record.reasoning_tokens, Boolean(record.estimated)]),
    [
      [first.reported.input, 0, first.reported.output, 40, false],
      [second.reported.input, second.reported.cached, second.reported.output, 40, false],
    ],
  );
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('Anthropic SDK on Gemini 3: tool calls with thought signatures round-trip, streamed and not, charged exactly', async (t, database) => {
  const { gateway, simulatorUrl } = await startGeminiGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const tools = [{ name: 'get_weather', description: 'Current weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }];
  const question = { role: 'user' as const, content: 'What is the weather in Oslo?' };

  const first = await reportedFor(t, simulatorUrl, () => anthropic.messages.create({ model: 'gemini/pro-3', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, tools, messages: [question] }));
  const message = first.value;
  t.is(message.stop_reason, 'tool_use');
  const toolUse = message.content.find((block) => block.type === 'tool_use');
  t.like(toolUse, { name: 'get_weather', input: { city: 'sim' } });
  const signed = message.content.filter((block) => block.type === 'thinking' && block.signature !== '');
  t.is(signed.length, 1, 'the call\'s thought signature travels as a signed thinking block');
  t.deepEqual(first.reported, { input: message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0), cached: message.usage.cache_read_input_tokens ?? 0, output: message.usage.output_tokens });
  t.is(await lastCharge(database, accountId), expectedChargeUnits(first.reported));

  // The turn goes back as the SDK received it; Gemini 3 refuses the call if its signature was lost or changed.
  const second = await reportedFor(t, simulatorUrl, () =>
    anthropic.messages
      .stream({
        model: 'gemini/pro-3',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tools,
        messages: [question, { role: 'assistant', content: message.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse!.type === 'tool_use' ? toolUse!.id : '', content: '-3C, snow' }] }],
      })
      .finalMessage(),
  );
  t.is(second.value.stop_reason, 'end_turn');
  const text = second.value.content.find((block) => block.type === 'text');
  t.regex(text?.type === 'text' ? text.text : '', /^Tool results: -3C, snow\. /);
  t.deepEqual(second.reported, { input: second.value.usage.input_tokens + (second.value.usage.cache_read_input_tokens ?? 0), cached: second.value.usage.cache_read_input_tokens ?? 0, output: second.value.usage.output_tokens });
  t.is(await lastCharge(database, accountId), expectedChargeUnits(second.reported));
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('Gemini search grounding reaches both dialects as their own citations; embeddings are charged per input token', async (t, database) => {
  const { gateway, simulatorUrl } = await startGeminiGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });

  const grounded = await reportedFor(t, simulatorUrl, () => openai.chat.completions.create({ model: 'gemini/search', messages: [{ role: 'user', content: 'Who won the match yesterday?' }] }));
  const annotations = (grounded.value.choices[0]!.message as { annotations?: { type: string; url_citation: { url: string; start_index: number; end_index: number } }[] }).annotations ?? [];
  t.deepEqual(
    annotations.map((annotation) => annotation.url_citation.url),
    ['https://example.com/sim/who-won-the-match-1', 'https://example.com/sim/who-won-the-match-2'],
  );
  t.is(annotations[0]!.url_citation.start_index, 0);
  t.is(await lastCharge(database, accountId), expectedChargeUnits(grounded.reported));

  const streamed = await reportedFor(t, simulatorUrl, () => anthropic.messages.stream({ model: 'gemini/search', max_tokens: 1024, messages: [{ role: 'user', content: 'Who won the match yesterday?' }] }).finalMessage());
  const block = streamed.value.content.find((item) => item.type === 'text');
  const citations = block?.type === 'text' ? (block.citations ?? []) : [];
  t.deepEqual(
    citations.map((citation) => (citation as { url?: string }).url),
    ['https://example.com/sim/who-won-the-match-1', 'https://example.com/sim/who-won-the-match-2'],
  );
  t.is(await lastCharge(database, accountId), expectedChargeUnits(streamed.reported));

  const before = await simulatorTotals(simulatorUrl, 'embeddings');
  const embedded = await openai.embeddings.create({ model: 'gemini/embedding', input: ['first text to embed', 'второй текст'], dimensions: 8 });
  const after = await simulatorTotals(simulatorUrl, 'embeddings');
  const tokens = after.input - before.input;
  t.is(embedded.data.length, 2);
  t.is(embedded.data[0]!.embedding.length, 8);
  t.is(embedded.usage.prompt_tokens, tokens, 'the tokens the simulator counted');
  // 13.50 RUB per 1M tokens = 135000 units per 1M, rounded up once.
  t.is(await lastCharge(database, accountId), (BigInt(tokens) * 135_000n + 999_999n) / 1_000_000n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('Vertex mode: the service account\'s token is exchanged once and reused by the next request', async (t, database) => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { gateway, simulatorUrl } = await startGeminiGateway(t, database, (url) => ({
    TEST_GEMINI_SERVICE_ACCOUNT: JSON.stringify({
      type: 'service_account',
      project_id: 'test-project',
      private_key_id: 'test-key',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: 'gateway@test-project.iam.gserviceaccount.com',
      token_uri: `${url}/gemini/token`,
    }),
  }));
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const stats = async () => ((await (await fetch(`${simulatorUrl}/gemini/__sim/stats`)).json()) as { tokenExchanges: number }).tokenExchanges;
  t.is(await stats(), 0);

  const first = await reportedFor(t, simulatorUrl, () => openai.chat.completions.create({ model: 'vertex/flash', messages: [{ role: 'user', content: 'Hello from Vertex' }] }));
  t.regex(first.value.choices[0]!.message.content!, /^Simulated answer to "Hello from Vertex": /);
  t.is(await stats(), 1);
  t.is(await lastCharge(database, accountId), expectedChargeUnits(first.reported));
  const second = await reportedFor(t, simulatorUrl, () => openai.chat.completions.stream({ model: 'vertex/flash', messages: [{ role: 'user', content: 'Hello again' }] }).finalChatCompletion());
  t.regex(second.value.choices[0]!.message.content!, /^Simulated answer to "Hello again": /);
  t.is(await stats(), 1, 'the cached token served the second request');
  t.is(await lastCharge(database, accountId), expectedChargeUnits(second.reported));
});

testOnBackends('Gemini images: a Gemini image model (generation and edit) and Imagen on Vertex, charged per image', async (t, database) => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { gateway } = await startGeminiGateway(t, database, (url) => ({
    TEST_GEMINI_SERVICE_ACCOUNT: JSON.stringify({ type: 'service_account', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), client_email: 'gateway@test-project.iam.gserviceaccount.com', token_uri: `${url}/gemini/token` }),
  }));
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const pngSize = (base64: string) => {
    const bytes = Buffer.from(base64, 'base64');
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  };

  const wide = await openai.images.generate({ model: 'gemini/flash-image', prompt: 'A lighthouse at dusk', aspect_ratio: '16:9' } as never);
  t.is(wide.data!.length, 1);
  t.deepEqual(pngSize(wide.data![0]!.b64_json!), { width: 1360, height: 768 });
  t.is(await lastCharge(database, accountId), 35_100n, 'one image at 3.51 RUB');

  const edited = await openai.images.edit({ model: 'gemini/flash-image', prompt: 'The same lighthouse in snow', image: await toFile(Buffer.from(wide.data![0]!.b64_json!, 'base64'), 'ref.png', { type: 'image/png' }) });
  t.deepEqual(pngSize(edited.data![0]!.b64_json!), { width: 1024, height: 1024 });
  t.is(await lastCharge(database, accountId), 35_100n);

  const imagen = await openai.images.generate({ model: 'vertex/imagen', prompt: 'A red fox', n: 2, size: '1536x1024' });
  t.is(imagen.data!.length, 2);
  t.deepEqual(pngSize(imagen.data![1]!.b64_json!), { width: 1248, height: 832 });
  t.is(await lastCharge(database, accountId), 72_000n, 'two images at 3.60 RUB');
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('Veo video jobs: submitted as a long-running operation, polled until done, the MP4 downloaded; charged the quote once', async (t, database) => {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const raw = fastJobsConfig();
  const gateway = await startGateway(t, database, {
    raw: {
      ...raw,
      providers: { ...raw.providers, 'gemini-sim': { kind: 'gemini', base_url: `${simulator.url}/gemini`, api_key_env: 'TEST_UPSTREAM_KEY' } },
      models: [
        ...raw.models,
        {
          id: 'test/veo',
          name: 'Veo 3 Fast',
          type: 'video',
          route: { provider: 'gemini-sim', model: 'veo-3.0-fast-generate-001' },
          pricing: { per_second: { default: '13.50' } },
          capabilities: { durations: [4, 6, 8], resolutions: ['720p', '1080p'] },
        },
      ],
    },
    jobRunner: true,
    env: { TEST_UPSTREAM_KEY: 'AIza-sim' },
  });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const done = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'test/veo', prompt: 'A calm sea at dawn', seconds: 6, size: '720x1280', wait: true });
  t.is(done.status, 200, JSON.stringify(done.body));
  t.is(done.body.status, 'completed');
  t.is(done.body.charged_rub, '81.0000', '6 s at 13.50 RUB');
  const content = await fetch(`${gateway.url}/v1/videos/${done.body.id}/content`, { headers: { authorization: `Bearer ${client.key}` } });
  t.is(content.headers.get('content-type'), 'video/mp4');
  const info = readMp4Info(new Uint8Array(await content.arrayBuffer()));
  t.like(info, { durationSeconds: 6, width: 720, height: 1280 });
  t.deepEqual(await charges(database, client.accountId), [810_000n]);
  await assertJobMoneySettled(t, database, client.accountId);
});
