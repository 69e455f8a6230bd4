// Routes and resilience: fallback before the first byte, upstream Retry-After respected,
// keep-alive comments on silent streams, gateway-tracked prompt caching.
import OpenAI from 'openai';
import { countTextTokens } from '../../src/model/token-estimate.js';
import { testOnBackends } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, testPrices } from '../helpers/chat-gateway.js';
import { testClock } from '../helpers/clock.js';

const chatModel = (id: string, extra: Record<string, unknown>) => ({ id, name: id, type: 'text', pricing: testPrices, capabilities: { max_output_tokens: 4096 }, ...extra });

testOnBackends('a connection failure on the first route falls back to the next one before the first byte', async (t, database) => {
  const gateway = await startChatGateway(t, database, {
    providers: { dead: { kind: 'openai', base_url: 'http://127.0.0.1:9/v1' } },
    models: [chatModel('t/fallback', { routes: [{ provider: 'dead', model: 'chat', weight: 1000 }, { provider: 'compat', model: 'chat', weight: 0 }] })],
  });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const reply = await openai.chat.completions.create({ model: 't/fallback', messages: [{ role: 'user', content: 'hello' }] });
  t.regex(reply.choices[0]!.message.content!, /Simulated answer/);
  await gateway.services.usageRecords.flush();
  t.is((await database.db('usage_records').first()).provider, 'compat');
});

testOnBackends('an upstream 429 with Retry-After pauses its routes: the client gets the delay, nothing is sent until it passes', async (t, database) => {
  const clock = testClock();
  const gateway = await startChatGateway(t, database, {
    models: [chatModel('t/limited', { routes: [{ provider: 'openai', model: 'chat' }, { provider: 'compat', model: 'chat' }] })],
    now: clock.now,
  });
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  // A 3 s pause on the gateway's clock, which moves only when the test says so: however slow
  // the machine, the next request arrives while the pause lasts.
  const limited = (await t.throwsAsync(openai.chat.completions.create({ model: 't/limited', messages: [{ role: 'user', content: 'x [[sim:status=429]] [[sim:retry-after=3]]' }] }))) as any;
  t.is(limited.status, 502);
  t.is(limited.headers.get('retry-after'), '3', "the upstream's Retry-After is passed on");
  const paused = (await t.throwsAsync(openai.chat.completions.create({ model: 't/limited', messages: [{ role: 'user', content: 'fine now' }] }))) as any;
  t.is(paused.status, 502);
  t.regex(paused.message, /asked for a pause/);
  t.is(paused.headers.get('x-should-retry'), 'true');
  t.is(paused.headers.get('retry-after'), '3', 'the whole pause is still ahead');
  clock.advance(2_999);
  const almost = (await t.throwsAsync(openai.chat.completions.create({ model: 't/limited', messages: [{ role: 'user', content: 'fine now' }] }))) as any;
  t.is(almost.status, 502, 'still paused 1 ms before its end');
  clock.advance(1);
  const after = await openai.chat.completions.create({ model: 't/limited', messages: [{ role: 'user', content: 'fine now' }] });
  t.is(after.choices[0]!.finish_reason, 'stop');
  t.is((await gateway.services.ledger.balance(accountId)).heldUnits, 0n);
});

testOnBackends('a stream silent for longer than the keep-alive interval gets ": ping" comments', async (t, database) => {
  const gateway = await startChatGateway(t, database, { server: { stream_keepalive: 1 } });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/chat', stream: true, messages: [{ role: 'user', content: 'slow start [[sim:ttfb=2500]]' }] }),
  });
  t.is(response.status, 200);
  const text = await response.text();
  t.true(text.startsWith(': ping\n\n') || text.includes('\n\n: ping\n\n'), 'a ping comment was sent while waiting');
  t.true(text.trimEnd().endsWith('data: [DONE]'));
  // And the SDK ignores the comments.
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const final = await openai.chat.completions.stream({ model: 'openai/chat', messages: [{ role: 'user', content: 'slow start [[sim:ttfb=1500]]' }] }).finalChatCompletion();
  t.regex(final.choices[0]!.message.content!, /Simulated answer/);
});

testOnBackends('models with prompt_cache: the gateway tracks prefixes for upstreams that report none', async (t, database) => {
  const gateway = await startChatGateway(t, database, {
    models: [chatModel('t/tracked', { route: { provider: 'compat', model: 'chat' }, capabilities: { max_output_tokens: 4096, prompt_cache: true } })],
  });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  // A short prefix: the simulator caches nothing below 64 tokens, so only the gateway can tell.
  const conversation = (last: string) => [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: 'Hi' },
    { role: 'assistant' as const, content: 'Hello' },
    { role: 'user' as const, content: last },
  ];
  const first = await openai.chat.completions.create({ model: 't/tracked', messages: conversation('one') });
  t.is(first.usage!.prompt_tokens_details?.cached_tokens ?? 0, 0);
  const second = await openai.chat.completions.stream({ model: 't/tracked', messages: conversation('two'), stream_options: { include_usage: true } }).finalChatCompletion();
  const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
  // Everything before the last message: the system prompt (and no tools, "[]"), "Hi" and "Hello".
  t.is(cached, countTextTokens('Be brief.' + '[]') + countTextTokens('Hi') + countTextTokens('Hello'));
  t.true(cached < second.usage!.prompt_tokens, 'the last message is not cached');
  const charge = await database.db('ledger_transactions').where({ kind: 'charge' }).orderBy('id', 'desc').first();
  t.is(-BigInt(charge.amount_units), expectedChargeUnits({ input: second.usage!.prompt_tokens, cached, output: second.usage!.completion_tokens }));
});

testOnBackends('a free model (all prices zero) is served without a hold or a charge', async (t, database) => {
  const gateway = await startChatGateway(t, database, {
    models: [{ id: 't/free', name: 'free', type: 'text', route: { provider: 'openai', model: 'chat' }, pricing: { per_1m_input_tokens: '0', per_1m_output_tokens: '0' } }],
  });
  const { key, accountId } = await gateway.newClient();
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const reply = await openai.chat.completions.create({ model: 't/free', messages: [{ role: 'user', content: 'hi' }] });
  t.is(reply.choices[0]!.finish_reason, 'stop');
  t.is((await gateway.services.ledger.balance(accountId)).balanceUnits, 0n);
});
