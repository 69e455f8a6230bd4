// Every dialect × upstream kind: cached tokens (reported in the dialect's own field and billed
// at the cached price), an upstream error before any output (JSON error, nothing charged) and
// a failure mid-stream (in-stream error, charged for what was delivered, no hold left).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, upstreamKinds } from '../helpers/chat-gateway.js';

const dialects = ['chat-completions', 'responses', 'messages'] as const;
const system = 'You are a meticulous assistant who answers about the weather. '.repeat(12);

for (const dialect of dialects) {
  for (const kind of upstreamKinds) {
    testOnBackends(`${dialect} over ${kind}: cached tokens, error before output, failure mid-stream`, async (t, database) => {
      const gateway = await startChatGateway(t, database);
      const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
      const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
      const model = `${kind}/chat`;
      const history = [
        { role: 'user' as const, content: 'What is the weather like?' },
        { role: 'assistant' as const, content: 'Sunny.' },
      ];

      /** One call in this dialect; returns the usage as {input, cached, output}. */
      const call = async (last: string, stream: boolean) => {
        if (dialect === 'chat-completions') {
          const messages = [{ role: 'system' as const, content: system }, ...history, { role: 'user' as const, content: last }];
          const result = stream
            ? await openai.chat.completions.stream({ model, messages, stream_options: { include_usage: true } }).finalChatCompletion()
            : await openai.chat.completions.create({ model, messages });
          return { input: result.usage!.prompt_tokens, cached: result.usage!.prompt_tokens_details?.cached_tokens ?? 0, output: result.usage!.completion_tokens };
        }
        if (dialect === 'responses') {
          const body = { model, instructions: system, input: [...history, { role: 'user' as const, content: last }] };
          const result = stream ? await openai.responses.stream(body).finalResponse() : await openai.responses.create(body);
          return { input: result.usage!.input_tokens, cached: result.usage!.input_tokens_details?.cached_tokens ?? 0, output: result.usage!.output_tokens };
        }
        const body = { model, max_tokens: 1024, system, messages: [...history, { role: 'user' as const, content: last }] };
        const result = stream ? await anthropic.messages.stream(body).finalMessage() : await anthropic.messages.create(body);
        const u = result.usage;
        return { input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), cached: u.cache_read_input_tokens ?? 0, output: u.output_tokens };
      };
      const lastCharge = async () => -BigInt((await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).orderBy('id', 'desc').first()).amount_units);

      await call('And tomorrow?', false);
      const cached = await call('And the day after?', true);
      // How much each vendor kind reports as cached differs (breakpoints, minimum lengths); the charge below is exact.
      t.true(cached.cached > 0, `cached tokens reported: ${JSON.stringify(cached)}`);
      t.is(await lastCharge(), expectedChargeUnits(cached), 'cached tokens billed at the cached price');

      const chargesBefore = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).count({ n: '*' }).first();
      const failure = await t.throwsAsync(call('x [[sim:status=503]]', false));
      t.is((failure as any).status, 502);
      const failureStreamed = await t.throwsAsync(call('x [[sim:status=500]]', true));
      t.is((failureStreamed as any).status, 502, 'a stream failing before output is a JSON error too');
      const chargesAfter = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).count({ n: '*' }).first();
      t.is(Number(chargesAfter!.n), Number(chargesBefore!.n), 'nothing charged for a failure before output');

      // The Responses stream helper of openai 6.x rejects with the error event itself, not an Error.
      await t.throwsAsync(call('Go on [[sim:fail-mid]] [[sim:tokens=60]]', true), { any: true });
      await gateway.services.usageRecords.flush();
      // The latest by time: a charged request's record is written with its settle, the others in
      // batches, so ids do not follow the order of the requests.
      const record = await database.db('usage_records').where({ account_id: accountId, status: 'failed' }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
      t.truthy(record, 'the mid-stream failure is recorded');
      // How much arrived before the cut depends on the vendor kind's chunking; the charge equals the record below.
      t.true(record.output_tokens > 0 && BigInt(record.cost_units) > 0n, 'what was delivered is charged');
      t.is(await lastCharge(), BigInt(record.cost_units));
      const balance = await gateway.services.ledger.balance(accountId);
      t.is(balance.heldUnits, 0n, 'no hold left behind');
    });
  }
}

// Reasoning from OpenAI-compatible upstreams (DeepSeek-style reasoning_content) has no
// signature; it still reaches every dialect as reasoning.
testOnBackends('reasoning text from an OpenAI-compatible upstream reaches every dialect', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const chat = await openai.chat.completions.create({ model: 'compat/reasoning', reasoning_effort: 'low', messages: [{ role: 'user', content: 'Think' }] });
  t.truthy((chat.choices[0]!.message as any).reasoning_content);
  const response = await openai.responses.create({ model: 'compat/reasoning', reasoning: { effort: 'low' }, input: 'Think' });
  t.truthy(response.output.find((item: any) => item.type === 'reasoning'));
  const message = await anthropic.messages.create({ model: 'compat/reasoning', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Think' }] });
  t.is(message.content[0]!.type, 'thinking');
});
