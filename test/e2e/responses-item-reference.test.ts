// Issue 34 item 3: Responses `item_reference`. The Vercel AI SDK's default Responses setup
// (@ai-sdk/openai 3.x: providerOptions.openai.store unset counts as true) sends, for the
// assistant side of its previous step, `{type: "item_reference", id}` for each reasoning item
// and for assistant text, while function calls go as `function_call` items without an id and
// their results as `function_call_output` (convertToOpenAIResponsesInput). The bodies below
// are written by hand after that source. The gateway resolves ids it returned to the same
// account in the last minutes; unknown ids are a 422 naming the input item.
import OpenAI from 'openai';
import { createTestDatabase, needing, redisUrl, testOnBackends } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';

const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    strict: false,
  },
];
const question = { role: 'user' as const, content: [{ type: 'input_text' as const, text: 'Weather in Paris? Think first.' }] };

testOnBackends('item_reference: the AI SDK two-step tool loop resolves reasoning and message references as if the items were sent', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  // The anthropic upstream refuses a tool loop whose assistant turn does not start with the
  // signed thinking block: it only works if the reference became the full reasoning item.
  for (const model of ['anthropic/reasoning', 'sim/reasoning']) {
    for (const stream of [false, true]) {
      const base = { model, tools, tool_choice: 'auto' as const, reasoning: { effort: 'low' as const } };
      const first: OpenAI.Responses.Response = stream
        ? await openai.responses.stream({ ...base, input: [question] }).finalResponse()
        : await openai.responses.create({ ...base, input: [question] });
      const reasoning = first.output.find((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning')!;
      const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call')!;
      t.truthy(reasoning && call, `${model} stream=${stream}: reasoning and a tool call`);
      t.truthy(reasoning.encrypted_content);
      const result = { type: 'function_call_output' as const, call_id: call.call_id, output: 'sunny' };
      const asSdkSends = [question, { type: 'item_reference' as const, id: reasoning.id }, { type: 'function_call' as const, call_id: call.call_id, name: call.name, arguments: call.arguments }, result];
      const second = await openai.responses.create({ ...base, input: asSdkSends });
      // The same request with the items themselves: the same answer and the same input tokens.
      const inline = await openai.responses.create({ ...base, input: [question, reasoning, call, result] as never });
      t.is(second.status, 'completed', `${model} stream=${stream}`);
      t.is(second.output_text, inline.output_text);
      t.is(second.usage!.input_tokens, inline.usage!.input_tokens);
      t.true(second.output_text.length > 0);

      // Step three refers to step two's reasoning and message items (text after reasoning).
      const secondReasoning = second.output.find((item) => item.type === 'reasoning');
      const secondMessage = second.output.find((item) => item.type === 'message')!;
      const followUp = { role: 'user' as const, content: [{ type: 'input_text' as const, text: 'And tomorrow?' }] };
      const third = await openai.responses.create({
        ...base,
        input: [...asSdkSends, ...(secondReasoning ? [{ type: 'item_reference' as const, id: secondReasoning.id }] : []), { type: 'item_reference', id: secondMessage.id }, followUp],
      });
      const thirdInline = await openai.responses.create({
        ...base,
        input: [question, reasoning, call, result, ...(secondReasoning ? [secondReasoning] : []), secondMessage, followUp] as never,
      });
      t.is(third.status, 'completed');
      t.is(third.usage!.input_tokens, thirdInline.usage!.input_tokens);
      t.is(third.output_text, thirdInline.output_text);
    }
  }
});

testOnBackends('item_reference: an unknown id, or one returned to another account, is a 422 naming the input item; nothing is charged', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const owner = await gateway.newClient({ balanceUnits: 10_000_000n });
  const other = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: owner.key, maxRetries: 0 });
  const first = await openai.responses.create({ model: 'sim/chat', input: 'hello' });
  const messageId = first.output[0]!.id!;

  const post = (key: string, id: string) =>
    fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/chat', input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id }, { role: 'user', content: 'again' }] }),
    });
  const before = await gateway.services.ledger.balance(other.accountId);
  for (const [key, id] of [
    [owner.key, 'msg_unknown_0'],
    [other.key, messageId],
  ] as const) {
    const answer = await post(key, id);
    t.is(answer.status, 422);
    const body = (await answer.json()) as { detail: { loc: unknown[]; msg: string; input: unknown }[]; error: { param: string } };
    t.deepEqual(body.detail.length, 1);
    t.deepEqual(body.detail[0]!.loc, ['body', 'input', 1, 'id']);
    t.is(body.detail[0]!.input, id);
    t.is(body.detail[0]!.msg, `item_reference '${id}' refers to no item this gateway returned to this account in the last 5 minutes; send the item itself instead of a reference`);
  }
  t.deepEqual(await gateway.services.ledger.balance(other.accountId), before);
  // The owner's own id resolves.
  const ok = await post(owner.key, messageId);
  t.is(ok.status, 200);
});

needing('postgres', 'redis')('item_reference across instances sharing Redis and PostgreSQL: an item returned by one instance resolves on the other', async (t) => {
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const env = { GATEWAY_CACHE_URL: redisUrl! };
  const first = await startChatGateway(t, database, { env });
  const second = await startChatGateway(t, database, { env });
  const { key } = await first.newClient({ balanceUnits: 10_000_000n });
  const base = { model: 'sim/reasoning', tools, tool_choice: 'auto' as const, reasoning: { effort: 'low' as const } };
  const step = await new OpenAI({ baseURL: `${first.url}/v1`, apiKey: key, maxRetries: 0 }).responses.create({ ...base, input: [question] });
  const reasoning = step.output.find((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning')!;
  const call = step.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call')!;
  const result = { type: 'function_call_output' as const, call_id: call.call_id, output: 'sunny' };
  const onSecond = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: key, maxRetries: 0 });
  const referred = await onSecond.responses.create({ ...base, input: [question, { type: 'item_reference', id: reasoning.id }, call, result] });
  const inline = await onSecond.responses.create({ ...base, input: [question, reasoning, call, result] as never });
  t.is(referred.status, 'completed');
  t.is(referred.usage!.input_tokens, inline.usage!.input_tokens);
  t.is(referred.output_text, inline.output_text);
});
