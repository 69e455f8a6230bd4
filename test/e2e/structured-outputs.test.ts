// Structured output through the official SDKs' helpers, over every upstream kind (the
// simulator standing in for each vendor) and both Anthropic paths: OpenAI-kind upstreams get
// response_format passed through; Anthropic-kind models without a native format get a forced
// output tool whose input comes back as the text; `*/native` models (catalog
// structured_outputs: true) get output_config.format. Streamed and not, in all three dialects,
// each answer must be exactly the simulator's deterministic instance of the schema, and every
// call settles its hold (ledger invariants at the end).
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { startChatGateway, testPrices, upstreamKinds } from '../helpers/chat-gateway.js';

const Region: z.ZodType<{ name: string; children: unknown[] }> = z.object({ name: z.string(), get children() { return z.array(Region); } });

/** Objects, arrays, enums, nested objects, nullable (anyOf) and a recursive $ref. */
const Forecast = z.object({
  city: z.string(),
  unit: z.enum(['celsius', 'fahrenheit']),
  days: z.array(z.object({ date: z.string(), high: z.number(), sunny: z.boolean(), note: z.string().nullable() })),
  confidence: z.number().int(),
  alert: z.union([z.object({ level: z.string() }), z.null()]),
  region: Region,
});

/** What the simulator answers to Forecast's schema, written out by hand (schema-instance.ts rules). */
const expected = {
  city: 'sim',
  unit: 'celsius',
  days: [{ date: 'sim', high: 1, sunny: true, note: 'sim' }],
  confidence: 1,
  alert: { level: 'sim' },
  region: { name: 'sim', children: [] },
};

const nativeKinds = ['sim', 'anthropic'] as const;
const models = [...upstreamKinds.map((kind) => `${kind}/chat`), ...nativeKinds.map((kind) => `${kind}/native`)];

testOnBackends('structured output through the SDK helpers: every upstream kind, streamed and not, each dialect', async (t, database) => {
  const nativeModels = nativeKinds.map((kind) => ({
    id: `${kind}/native`,
    name: `${kind} native structured output`,
    type: 'text',
    route: { provider: kind, model: 'chat' },
    pricing: testPrices,
    capabilities: { tools: true, max_output_tokens: 8192, structured_outputs: true },
  }));
  const gateway = await startChatGateway(t, database, { models: nativeModels });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: 'Forecast for Paris' }];

  for (const model of models) {
    const parsed = await openai.chat.completions.parse({ model, messages, response_format: zodResponseFormat(Forecast, 'forecast') });
    t.deepEqual(parsed.choices[0]!.message.parsed, expected, `${model}: chat.completions.parse`);
    t.is(parsed.choices[0]!.finish_reason, 'stop', `${model}: a structured answer is a normal stop`);
    t.is(parsed.choices[0]!.message.tool_calls, undefined, `${model}: no tool call shows`);

    const chatStream = openai.chat.completions.stream({ model, messages, response_format: zodResponseFormat(Forecast, 'forecast') });
    let deltas = '';
    chatStream.on('content.delta', ({ delta }) => (deltas += delta));
    const streamed = await chatStream.finalChatCompletion();
    t.deepEqual(streamed.choices[0]!.message.parsed, expected, `${model}: chat.completions.stream`);
    t.deepEqual(JSON.parse(deltas), expected, `${model}: the content deltas concatenate to the JSON`);
    t.is(streamed.choices[0]!.finish_reason, 'stop');

    const response = await openai.responses.parse({ model, input: 'Forecast for Paris', text: { format: zodTextFormat(Forecast, 'forecast') } });
    t.deepEqual(response.output_parsed, expected, `${model}: responses.parse`);
    t.is(response.status, 'completed');
    t.like(response.text?.format, { type: 'json_schema', name: 'forecast', strict: true });

    const responseStream = openai.responses.stream({ model, input: 'Forecast for Paris', text: { format: zodTextFormat(Forecast, 'forecast') } });
    const final = await responseStream.finalResponse();
    t.deepEqual(final.output_parsed, expected, `${model}: responses.stream`);

    const message = await anthropic.messages.parse({ model, max_tokens: 1024, messages, output_config: { format: zodOutputFormat(Forecast) } });
    t.deepEqual(message.parsed_output, expected, `${model}: messages.parse`);
    t.is(message.stop_reason, 'end_turn', `${model}: messages stop normally, not on tool_use`);
    t.deepEqual(
      message.content.map((block) => block.type),
      ['text'],
      `${model}: one text block`,
    );

    const messageStream = anthropic.messages.stream({ model, max_tokens: 1024, messages, output_config: { format: zodOutputFormat(Forecast) } });
    const finalMessage = await messageStream.finalMessage();
    t.deepEqual(finalMessage.parsed_output, expected, `${model}: messages.stream`);
    t.is(finalMessage.stop_reason, 'end_turn');

    const jsonObject = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Answer in JSON' }], response_format: { type: 'json_object' } });
    const object = JSON.parse(jsonObject.choices[0]!.message.content!);
    t.true(typeof object === 'object' && object !== null && !Array.isArray(object), `${model}: json_object gives a JSON object`);
  }
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('structured output with client tools on an Anthropic upstream: the model may call a tool instead, then answers in the format', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const tools = [{ type: 'function' as const, function: { name: 'get_weather', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }];
  const first = await openai.chat.completions.create({
    model: 'anthropic/chat',
    messages: [{ role: 'user', content: 'Forecast for Paris' }],
    tools,
    response_format: zodResponseFormat(Forecast, 'forecast'),
  });
  const call = first.choices[0]!.message.tool_calls![0]! as { id: string; function: { name: string; arguments: string } };
  t.is(first.choices[0]!.finish_reason, 'tool_calls');
  t.is(call.function.name, 'get_weather');
  const second = await openai.chat.completions.parse({
    model: 'anthropic/chat',
    messages: [{ role: 'user', content: 'Forecast for Paris' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21' }],
    tools,
    response_format: zodResponseFormat(Forecast, 'forecast'),
  });
  t.deepEqual(second.choices[0]!.message.parsed, expected);
  t.is(second.choices[0]!.finish_reason, 'stop');
  await assertLedgerInvariants(t, database.db);
});

// Issue 34 item 6: JSON mode (json_object, no schema) answers an object with the keys the
// prompt names — quoted words and `key: type` lines in the system prompt and the last user
// turn — so LangChain's and the AI SDK's JSON modes parse what they asked for on a fresh install.
// The `sim` kind reaches the simulator's Anthropic side (a forced output tool whose input is any
// object); the `openai` kind its OpenAI side (response_format passed through).
testOnBackends('json_object mode answers the keys the prompt names: chat completions and responses, sim and openai kinds', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 100_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const system = 'Reply in JSON with the keys "title" and `director`.';
  const user = 'A film about the sea. Use this shape:\n{ year: number, awards: array, color: boolean }';
  const expectedObject = { title: 'sim', director: 'sim', year: 1, awards: [], color: true };
  for (const model of ['sim/chat', 'openai/chat']) {
    const chat = await openai.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      response_format: { type: 'json_object' },
    });
    t.deepEqual(JSON.parse(chat.choices[0]!.message.content!), expectedObject, `${model} chat completions`);
    t.is(chat.choices[0]!.finish_reason, 'stop', model);

    const response = await openai.responses.create({ model, instructions: system, input: user, text: { format: { type: 'json_object' } } });
    t.deepEqual(JSON.parse(response.output_text), expectedObject, `${model} responses`);

    // Nothing named: still an object (the Anthropic side's free-form tool input stays `{}`).
    const bare = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Answer in JSON please.' }], response_format: { type: 'json_object' } });
    t.is(typeof JSON.parse(bare.choices[0]!.message.content!), 'object', model);
  }
  await assertLedgerInvariants(t, database.db);
});
