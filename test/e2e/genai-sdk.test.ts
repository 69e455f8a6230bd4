// The fourth client dialect: Google's own @google/genai SDK, with only its base URL and key
// changed, against the gateway routed to an OpenAI and to an Anthropic upstream (the simulator):
// generateContent, generateContentStream, countTokens, function calls, JSON mode, thinking,
// search grounding; charged exactly once, streamed or not; a client gone mid-stream is charged
// what was delivered; errors in Google's shape. On SQLite and PostgreSQL.
import type { ExecutionContext } from 'ava';
import { ApiError, FinishReason, FunctionCallingConfigMode, GoogleGenAI, Type, type GenerateContentResponse, type GenerateContentResponseUsageMetadata } from '@google/genai';
import type { Knex } from 'knex';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';

const sdk = (url: string, apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: url } });

/** What the gateway bills: all prompt tokens (cached at their price) and every output token, thoughts included. */
const chargeOf = (usage: GenerateContentResponseUsageMetadata | undefined) =>
  expectedChargeUnits({ input: usage!.promptTokenCount!, cached: usage!.cachedContentTokenCount ?? 0, output: usage!.candidatesTokenCount! + (usage!.thoughtsTokenCount ?? 0) });

async function charges(db: Knex, accountId: string): Promise<bigint[]> {
  const rows = await db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).orderBy('id');
  return rows.map((row) => -BigInt(row.amount_units));
}

/** Google's error body, as the SDK's ApiError carries it (its message is the body's JSON). */
function googleError(t: ExecutionContext, error: unknown): { code: number; message: string; status: string; details: any[] } {
  t.true(error instanceof ApiError, String(error));
  return JSON.parse((error as ApiError).message).error;
}

async function streamed(stream: AsyncGenerator<GenerateContentResponse>): Promise<{ text: string; thoughts: string; chunks: GenerateContentResponse[] }> {
  const chunks: GenerateContentResponse[] = [];
  let text = '';
  let thoughts = '';
  for await (const chunk of stream) {
    chunks.push(chunk);
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.thought) thoughts += part.text ?? '';
      else text += part.text ?? '';
    }
  }
  return { text, thoughts, chunks };
}

testOnBackends('generateContent and generateContentStream over OpenAI and Anthropic upstreams: the answer, its usage, one exact charge each', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  const expected: bigint[] = [];
  for (const model of ['openai/chat', 'anthropic/chat']) {
    const answer = await client.models.generateContent({
      model,
      contents: 'Hello there [[sim:tokens=30]]',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 200, temperature: 0.5, topP: 0.9 },
    });
    t.regex(answer.text!, /^Simulated answer to "Hello there/);
    t.is(answer.candidates![0]!.finishReason, FinishReason.STOP);
    t.is(answer.candidates![0]!.content!.role, 'model');
    t.is(answer.modelVersion, model);
    const usage = answer.usageMetadata!;
    t.is(usage.candidatesTokenCount, 30, 'the simulator answered 30 tokens');
    t.is(usage.totalTokenCount, usage.promptTokenCount! + 30);
    t.true(usage.promptTokenCount! > 0);
    expected.push(chargeOf(usage));

    const { text, chunks } = await streamed(await client.models.generateContentStream({ model, contents: 'Hello again [[sim:tokens=25]]' }));
    t.regex(text, /^Simulated answer to "Hello again/);
    t.true(chunks.length > 3, 'the answer came in pieces');
    const last = chunks.at(-1)!;
    t.is(last.candidates![0]!.finishReason, FinishReason.STOP);
    t.is(last.usageMetadata!.candidatesTokenCount, 25);
    t.true(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined && chunk.candidates![0]!.finishReason === undefined), 'usage and finish on the last chunk only');
    expected.push(chargeOf(last.usageMetadata));
  }
  t.deepEqual(await charges(database.db, accountId), expected, 'each request charged once, exactly price × the usage it reported');
  await gateway.services.usageRecords.flush();
  const records = await database.db('usage_records').where({ account_id: accountId }).orderBy('id');
  t.deepEqual(records.map((r) => [r.endpoint, r.model, r.status]), [
    ['generate-content', 'openai/chat', 'completed'],
    ['generate-content', 'openai/chat', 'completed'],
    ['generate-content', 'anthropic/chat', 'completed'],
    ['generate-content', 'anthropic/chat', 'completed'],
  ]);
  const history = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json() as Promise<any>);
  const listed = history.data.filter((entry: any) => entry.kind === 'charge');
  t.deepEqual(listed.map((entry: any) => [entry.model, entry.description]).reverse(), [
    ['openai/chat', 'generate-content openai/chat'],
    ['openai/chat', 'generate-content openai/chat'],
    ['anthropic/chat', 'generate-content anthropic/chat'],
    ['anthropic/chat', 'generate-content anthropic/chat'],
  ], 'the history lists them');
  await gateway.services.requestLog.flush();
  const logged = await database.db('request_log').where({ account_id: accountId }).whereNot({ route: '/v1/history' }).orderBy('created_at');
  t.deepEqual(logged.map((row) => [row.route, row.model, row.status, BigInt(row.charged_units)]), [
    ['/v1/models/{*model}\\:generateContent', 'openai/chat', 200, expected[0]],
    ['/v1/models/{*model}\\:streamGenerateContent', 'openai/chat', 200, expected[1]],
    ['/v1/models/{*model}\\:generateContent', 'anthropic/chat', 200, expected[2]],
    ['/v1/models/{*model}\\:streamGenerateContent', 'anthropic/chat', 200, expected[3]],
  ], 'the request log has each request, its model and its charge');
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.heldUnits, 0n);
  t.is(balance.balanceUnits, 1_000_000n - expected.reduce((a, b) => a + b, 0n));
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a conversation, images and countTokens: counted without a charge, the chat history of the SDK sent back', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  const counted = await client.models.countTokens({ model: 'anthropic/chat', contents: 'How many tokens is this?' });
  // ceil(24 UTF-8 bytes / 4) + 3 per message (src/model/token-estimate.ts).
  t.is(counted.totalTokens, 9);
  t.deepEqual(await charges(database.db, accountId), [], 'counting charges nothing');

  const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  for (const model of ['openai/chat', 'anthropic/chat']) {
    const chat = client.chats.create({ model });
    const first = await chat.sendMessage({ message: [{ text: 'What is in this picture?' }, { inlineData: { mimeType: 'image/png', data: pixel } }] });
    t.regex(first.text!, /I see 1 image/);
    const second = await chat.sendMessageStream({ message: 'And now?' });
    t.regex((await streamed(second)).text, /^Simulated answer to "And now\?"/);
    // The SDK keeps each streamed chunk as a model turn of its own: sent back, they make one turn again.
    t.true(chat.getHistory().length > 4);
    const third = await chat.sendMessage({ message: 'Third question' });
    t.regex(third.text!, /^Simulated answer to "Third question"/);
  }
  t.is((await charges(database.db, accountId)).length, 6);
});

testOnBackends('function calling round trip: functionCall parts, then the functionResponse answered, on both upstreams', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  const tools = [
    {
      functionDeclarations: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING }, days: { type: Type.INTEGER, nullable: true } }, required: ['city'] },
        },
      ],
    },
  ];
  for (const model of ['openai/chat', 'anthropic/chat']) {
    for (const stream of [false, true]) {
      const contents: any[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
      const config = { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } } };
      const parts = stream
        ? (await streamed(await client.models.generateContentStream({ model, contents, config }))).chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
        : (await client.models.generateContent({ model, contents, config })).candidates![0]!.content!.parts!;
      const calls = parts.filter((p) => p.functionCall);
      t.is(calls.length, 1, `${model} ${stream ? 'stream' : 'body'}: one call`);
      const call = calls[0]!.functionCall!;
      t.is(call.name, 'get_weather');
      t.deepEqual(call.args, { city: 'sim' }, 'the arguments, whole, as an object');
      t.truthy(call.id);
      contents.push({ role: 'model', parts: [{ functionCall: call }] });
      contents.push({ role: 'user', parts: [{ functionResponse: { id: call.id, name: 'get_weather', response: { output: 'Sunny, 21 degrees' } } }] });
      const answer = await client.models.generateContent({ model, contents, config: { tools } });
      t.regex(answer.text!, /^Tool results: Sunny, 21 degrees/);
      t.is(answer.functionCalls, undefined);
    }
  }
});

testOnBackends('JSON mode: responseSchema (Gemini Schema) and responseJsonSchema answer JSON of the schema; application/json alone an object', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  for (const model of ['openai/chat', 'anthropic/chat']) {
    const withSchema = await client.models.generateContent({
      model,
      contents: 'A recipe please',
      config: {
        responseMimeType: 'application/json',
        responseSchema: { type: Type.OBJECT, properties: { name: { type: Type.STRING }, servings: { type: Type.INTEGER } }, required: ['name', 'servings'], propertyOrdering: ['name', 'servings'] },
      },
    });
    t.deepEqual(JSON.parse(withSchema.text!), { name: 'sim', servings: 1 });
    const jsonSchema = await client.models.generateContent({
      model,
      contents: 'A recipe please',
      config: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
    });
    t.deepEqual(JSON.parse(jsonSchema.text!), { title: 'sim' });
    const object = await client.models.generateContent({ model, contents: 'Answer with the key "city"', config: { responseMimeType: 'application/json' } });
    t.deepEqual(JSON.parse(object.text!), { city: 'sim' });
  }
});

testOnBackends('thinking on the reasoning models: thought parts when includeThoughts, thoughtsTokenCount billed as output either way', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  const expected: bigint[] = [];
  for (const model of ['openai/reasoning', 'anthropic/reasoning']) {
    const shown = await client.models.generateContent({ model, contents: 'Think about it', config: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'MEDIUM' as never } } });
    const parts = shown.candidates![0]!.content!.parts!;
    t.true(shown.usageMetadata!.thoughtsTokenCount! > 0, `${model}: thoughts counted`);
    t.is(shown.usageMetadata!.totalTokenCount, shown.usageMetadata!.promptTokenCount! + shown.usageMetadata!.candidatesTokenCount! + shown.usageMetadata!.thoughtsTokenCount!);
    t.regex(shown.text!, /^Simulated answer/, 'the text leaves the thoughts out');
    if (model.startsWith('anthropic')) {
      // Anthropic shows its thinking (40 tokens, signed); OpenAI keeps its reasoning hidden.
      t.true(parts[0]!.thought === true && parts[0]!.text!.length > 0 && parts[0]!.thoughtSignature !== undefined, JSON.stringify(parts[0]));
    }
    expected.push(chargeOf(shown.usageMetadata));

    const hidden = await streamed(await client.models.generateContentStream({ model, contents: 'Think about it', config: { thinkingConfig: { thinkingBudget: 2048 } } }));
    t.is(hidden.thoughts, '', 'no thought parts unless includeThoughts');
    const usage = hidden.chunks.at(-1)!.usageMetadata!;
    t.true(usage.thoughtsTokenCount! > 0);
    expected.push(chargeOf(usage));
  }
  const shownStream = await streamed(await client.models.generateContentStream({ model: 'anthropic/reasoning', contents: 'Think', config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 4096 } } }));
  t.true(shownStream.thoughts.length > 0, 'thoughts streamed');
  t.true(shownStream.chunks.some((c) => c.candidates?.[0]?.content?.parts?.some((p) => p.thought && p.thoughtSignature)), 'the signature in a thought part');
  expected.push(chargeOf(shownStream.chunks.at(-1)!.usageMetadata));
  t.deepEqual(await charges(database.db, accountId), expected);

  // A tool turn with thinking, through the SDK's chat: its history sends the signed thought back
  // (the simulator, as Anthropic, refuses a thinking block whose signature does not match).
  const tools = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] }];
  for (const includeThoughts of [true, false]) {
    const chat = client.chats.create({ model: 'anthropic/reasoning', config: { tools, thinkingConfig: { includeThoughts, thinkingBudget: 2048 } } });
    const first = await chat.sendMessage({ message: 'Weather in Paris?' });
    t.is(first.candidates![0]!.content!.parts!.some((part) => part.thought && part.thoughtSignature), includeThoughts);
    const call = first.functionCalls![0]!;
    const second = await chat.sendMessage({ message: [{ functionResponse: { id: call.id!, name: call.name!, response: { output: 'Sunny' } } }] });
    t.regex(second.text!, /^Tool results: Sunny/);
  }

  const off = await client.models.generateContent({ model: 'anthropic/reasoning', contents: 'No thinking', config: { thinkingConfig: { thinkingBudget: 0 } } });
  t.is(off.usageMetadata!.thoughtsTokenCount, undefined, 'thinkingBudget 0 turns thinking off');
});

testOnBackends('a search model: its citations as groundingMetadata, in the body and in the last chunk', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  const answer = await client.models.generateContent({ model: 'anthropic/search', contents: 'News today?' });
  const grounding = answer.candidates![0]!.groundingMetadata!;
  t.deepEqual(grounding.groundingChunks, [
    { web: { uri: 'https://example.com/sim/news-today-1', title: 'Simulated source 1: News today?' } },
    { web: { uri: 'https://example.com/sim/news-today-2', title: 'Simulated source 2: News today?' } },
  ]);
  // Anthropic's citations apply to their whole text block: the segment is all of it.
  const whole = { partIndex: 0, startIndex: 0, endIndex: answer.text!.length };
  t.deepEqual(grounding.groundingSupports, [
    { segment: whole, groundingChunkIndices: [0] },
    { segment: whole, groundingChunkIndices: [1] },
  ]);
  const { chunks, text } = await streamed(await client.models.generateContentStream({ model: 'anthropic/search', contents: 'News today?' }));
  const streamedGrounding = chunks.at(-1)!.candidates![0]!.groundingMetadata!;
  t.deepEqual(streamedGrounding.groundingChunks, grounding.groundingChunks);
  t.deepEqual(streamedGrounding.groundingSupports![0]!.segment, { startIndex: 0, endIndex: text.length });
});

testOnBackends('a client gone mid-stream is charged for what was delivered; nothing stays held', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);
  const controller = new AbortController();
  let received = '';
  try {
    const stream = await client.models.generateContentStream({ model: 'openai/chat', contents: 'Tell me a long story [[sim:tokens=400]] [[sim:delay=30]]', config: { abortSignal: controller.signal } });
    for await (const chunk of stream) {
      received += chunk.text ?? '';
      if (received.length > 40 && !controller.signal.aborted) controller.abort();
    }
  } catch {
    // the SDK ends the iteration or throws on abort; either way the client is gone
  }
  t.true(received.length > 40 && received.length < 1200, 'only the beginning was received');
  const record = await eventually(
    async () => {
      await gateway.services.usageRecords.flush();
      return database.db('usage_records').where({ account_id: accountId }).first();
    },
    { what: 'the usage record of the aborted request', intervalMs: 50 },
  );
  t.is(record.status, 'aborted');
  t.is(record.endpoint, 'generate-content');
  t.true(record.output_tokens > 0 && record.output_tokens < 200, `charged for ${record.output_tokens} tokens produced, not the 400 asked`);
  t.is(BigInt(record.cost_units), expectedChargeUnits({ input: record.input_tokens, cached: record.cached_input_tokens, output: record.output_tokens }));
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.heldUnits, 0n);
  t.is(1_000_000n - balance.balanceUnits, BigInt(record.cost_units));
  t.deepEqual(await charges(database.db, accountId), [BigInt(record.cost_units)], 'charged once');
});

testOnBackends("errors in Google's shape: bad key, unknown model, missing scope, no money, rate limit, refused fields, an upstream failure; nothing charged", async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = sdk(gateway.url, key);

  const badKey = googleError(t, await t.throwsAsync(sdk(gateway.url, 'sk-not-a-key').models.generateContent({ model: 'openai/chat', contents: 'Hi' })));
  t.like(badKey, { code: 401, status: 'UNAUTHENTICATED', message: 'Invalid API key: it is unknown or has been revoked.' });
  t.is(badKey.details[0].reason, 'invalid_api_key');

  const unknown = googleError(t, await t.throwsAsync(client.models.generateContent({ model: 'openai/chatt', contents: 'Hi' })));
  t.like(unknown, { code: 404, status: 'NOT_FOUND' });
  t.regex(unknown.message, /openai\/chatt/);

  const imagesOnly = await gateway.newClient({ balanceUnits: 1_000_000n, scopes: ['images'] });
  const scope = googleError(t, await t.throwsAsync(sdk(gateway.url, imagesOnly.key).models.generateContentStream({ model: 'openai/chat', contents: 'Hi' })));
  t.like(scope, { code: 403, status: 'PERMISSION_DENIED' });
  t.regex(scope.message, /"chat" scope/);
  const noSearch = await gateway.newClient({ balanceUnits: 1_000_000n, scopes: ['chat'] });
  t.like(googleError(t, await t.throwsAsync(sdk(gateway.url, noSearch.key).models.generateContent({ model: 'openai/search', contents: 'Hi' }))), { code: 403, status: 'PERMISSION_DENIED' });

  const cached = googleError(t, await t.throwsAsync(client.models.generateContent({ model: 'openai/chat', contents: 'Hi', config: { cachedContent: 'cachedContents/abc' } })));
  t.like(cached, { code: 400, status: 'INVALID_ARGUMENT' });
  t.regex(cached.message, /^body\.cachedContent: cachedContent is not supported/);
  t.deepEqual(cached.details[1].fieldViolations.map((v: any) => v.field), ['cachedContent']);
  const codeTool = googleError(t, await t.throwsAsync(client.models.generateContent({ model: 'openai/chat', contents: 'Hi', config: { tools: [{ codeExecution: {} }] } })));
  t.like(codeTool, { code: 400, status: 'INVALID_ARGUMENT', message: 'body.tools.0.codeExecution: code execution is not supported' });
  const effort = googleError(t, await t.throwsAsync(client.models.generateContent({ model: 'openai/chat', contents: 'Hi', config: { thinkingConfig: { thinkingLevel: 'HIGH' as never } } })));
  t.like(effort, { code: 400, status: 'INVALID_ARGUMENT' });
  t.regex(effort.message, /^body\.generationConfig\.thinkingConfig: /);

  const broke = await gateway.newClient({ balanceUnits: 0n });
  t.like(googleError(t, await t.throwsAsync(sdk(gateway.url, broke.key).models.generateContent({ model: 'openai/chat', contents: 'Hi' }))), { code: 402, status: 'FAILED_PRECONDITION' });
  const limited = await gateway.newClient({ balanceUnits: 1_000_000n, rpm: 1 });
  await sdk(gateway.url, limited.key).models.countTokens({ model: 'openai/chat', contents: 'Hi' });
  const limitedError = await t.throwsAsync(sdk(gateway.url, limited.key).models.generateContent({ model: 'openai/chat', contents: 'Hi' }));
  t.like(googleError(t, limitedError), { code: 429, status: 'RESOURCE_EXHAUSTED' });

  const upstream = googleError(t, await t.throwsAsync(client.models.generateContent({ model: 'anthropic/chat', contents: 'x [[sim:status=500]]' })));
  t.like(upstream, { code: 502, status: 'UNAVAILABLE' });

  // Over plain HTTP: ?key= as Google's docs write it, the /v1beta paths, a stream without alt=sse.
  const url = `${gateway.url}/v1beta/models/openai/chat`;
  const body = JSON.stringify({ contents: [{ parts: [{ text: 'Hi' }] }] });
  const byQuery = await fetch(`${url}:countTokens?key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  t.is(byQuery.status, 200);
  t.deepEqual(await byQuery.json(), { totalTokens: 4 });
  const noSse = await fetch(`${url}:streamGenerateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': key }, body });
  t.is(noSse.status, 400);
  t.like(((await noSse.json()) as any).error, { code: 400, status: 'INVALID_ARGUMENT' });
  const missing = await fetch(`${url}:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  t.like(((await missing.json()) as any).error, { code: 401, status: 'UNAUTHENTICATED', message: 'Missing API key: send "x-goog-api-key: <key>" (or ?key=<key>).' });
  // A method the gateway does not serve: its path is a model's (GET), so 405.
  const unknownAction = await fetch(`${url}:embedContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': key }, body });
  t.like(((await unknownAction.json()) as any).error, { code: 405, status: 'UNIMPLEMENTED' });

  const balance = await gateway.services.ledger.balance(accountId);
  t.deepEqual([balance.balanceUnits, balance.heldUnits], [1_000_000n, 0n], 'no refusal charged or held anything');
});

testOnBackends('models.list and models.get answer Gemini Model objects', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1n });
  const client = sdk(gateway.url, key);
  const names: string[] = [];
  for await (const model of await client.models.list()) names.push(model.name!);
  t.true(names.includes('models/openai/chat') && names.includes('models/anthropic/reasoning'), names.join(' '));
  const model = await client.models.get({ model: 'anthropic/reasoning' });
  t.like(model, { name: 'models/anthropic/reasoning', displayName: 'anthropic reasoning', outputTokenLimit: 32768, thinking: true });
  t.deepEqual(model.supportedActions, ['generateContent', 'streamGenerateContent', 'countTokens']);
  const beta = (await fetch(`${gateway.url}/v1beta/models/openai/chat`).then((r) => r.json())) as any;
  t.is(beta.name, 'models/openai/chat');
});
