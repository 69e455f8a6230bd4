// A key's tokens per minute and requests in flight (issue 30 item 11), through HTTP with the
// official SDKs, one process (the counters in memory); key-limits-redis.test.ts shares them
// between two instances over one Redis. The gateway's clock is a test clock: the token window
// moves only when the test says so.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const balanceUnits = 100_000_000n; // 10,000 RUB: money is never what refuses here
const question = [{ role: 'user' as const, content: 'How many tokens is this? [[sim:tokens=12]]' }];

function openaiOf(gateway: TestGateway, key: string): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
}

/** What one plain and one streamed chat of `question` use, input + output (the simulator is deterministic). */
async function tokensOfOneCall(gateway: TestGateway): Promise<{ plain: number; streamed: number }> {
  const { key } = await gateway.newClient({ balanceUnits });
  const openai = openaiOf(gateway, key);
  const completion = await openai.chat.completions.create({ model: 'sim/chat', messages: question });
  const stream = await openai.chat.completions.create({ model: 'sim/chat', messages: question, stream: true, stream_options: { include_usage: true } });
  let streamed = 0;
  for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage.prompt_tokens + chunk.usage.completion_tokens;
  return { plain: completion.usage!.prompt_tokens + completion.usage!.completion_tokens, streamed };
}

testOnBackends('tpm: tokens of streamed and plain calls counted at settle; refused while the last minute reaches it, in each dialect; the window moves with the clock', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { now: clock.now });
  const used = await tokensOfOneCall(gateway);
  t.true(used.plain > 12 && used.streamed > 12);
  // Exactly two calls' worth: after them the bucket is full.
  const tpm = used.plain + used.streamed;
  const { key } = await gateway.newClient({ balanceUnits, tpm });
  const openai = openaiOf(gateway, key);

  const first = await openai.chat.completions.create({ model: 'sim/chat', messages: question, stream: true, stream_options: { include_usage: true } }).withResponse();
  for await (const _chunk of first.data);
  t.is(first.response.headers.get('x-ratelimit-limit-tokens'), String(tpm));
  t.is(first.response.headers.get('x-ratelimit-remaining-tokens'), String(tpm), 'nothing counted before the first call');
  const second = await openai.chat.completions.create({ model: 'sim/chat', messages: question }).withResponse();
  t.is(second.response.headers.get('x-ratelimit-remaining-tokens'), String(used.plain), "the streamed call's tokens counted");

  // Full: refused before any work, in the OpenAI form…
  const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', messages: question }),
  });
  t.is(refused.status, 429);
  t.is(refused.headers.get('retry-after'), '1');
  t.is(refused.headers.get('retry-after-ms'), '1', 'admitted 1 ms after the bucket drains below a whole minute');
  t.is(refused.headers.get('x-ratelimit-remaining-tokens'), '0');
  t.is(refused.headers.get('x-ratelimit-reset-tokens'), '1m0s');
  const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
  t.like(body.error, { type: 'rate_limit_error', code: 'tokens_per_minute_exceeded' });
  t.regex(body.error.message, new RegExp(`${tpm} tokens per minute`));
  // …and in Anthropic's on /v1/messages; the SDKs see their rate-limit errors.
  const anthropicRefusal = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'sim/chat', max_tokens: 100, messages: question }),
  });
  t.is(anthropicRefusal.status, 429);
  t.is(anthropicRefusal.headers.get('retry-after'), '1');
  t.like(await anthropicRefusal.json(), { type: 'error', error: { type: 'rate_limit_error' } });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  await t.throwsAsync(anthropic.messages.create({ model: 'sim/chat', max_tokens: 100, messages: question }), { instanceOf: Anthropic.RateLimitError });
  await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', messages: question }), { instanceOf: OpenAI.RateLimitError });
  t.is((await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).status, 429, 'every route of the key, not only chat');

  // The window moves with the clock: half a minute later half the allowance is back.
  clock.advance(30_000);
  const later = await openai.chat.completions.create({ model: 'sim/chat', messages: question }).withResponse();
  t.is(later.response.headers.get('x-ratelimit-remaining-tokens'), String(Math.ceil(tpm / 2)));
  // Refused requests were not counted: the calls counted are the three admitted ones.
  t.is((await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).headers.get('x-ratelimit-remaining-tokens'), String(Math.ceil(tpm / 2) - used.plain));
  // A key without a tpm has no token headers at all.
  const other = await gateway.newClient({ balanceUnits });
  t.is((await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${other.key}` } })).headers.get('x-ratelimit-limit-tokens'), null);
});

testOnBackends('tpm: one call past the limit makes the key wait (Retry-After at most 60), exactly until enough has drained; embeddings count', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { now: clock.now });
  const used = (await tokensOfOneCall(gateway)).plain;
  const { key } = await gateway.newClient({ balanceUnits, tpm: 1 });
  const openai = openaiOf(gateway, key);
  await openai.chat.completions.create({ model: 'sim/chat', messages: question }); // admitted: nothing counted yet
  const history = () => fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });
  const capped = await history();
  t.is(capped.status, 429);
  t.is(capped.headers.get('retry-after'), '60');
  t.is(capped.headers.get('retry-after-ms'), '60000');
  // `used` tokens at 1 per minute: full for used - 1 minutes, then 1 ms more.
  clock.advance((used - 1) * 60_000);
  const almost = await history();
  t.is(almost.status, 429);
  t.is(almost.headers.get('retry-after-ms'), '1');
  clock.advance(1);
  t.is((await history()).status, 200);

  // An embedding's input tokens count too.
  const embedder = await gateway.newClient({ balanceUnits, tpm: 1 });
  const embeddings = openaiOf(gateway, embedder.key);
  await embeddings.embeddings.create({ model: 'sim/embedding-small', input: 'three little words' });
  const error = await t.throwsAsync(embeddings.embeddings.create({ model: 'sim/embedding-small', input: 'again' }), { instanceOf: OpenAI.RateLimitError });
  t.is(error!.code, 'tokens_per_minute_exceeded');
});

testOnBackends('max in flight: one more is a 429; the slot comes back after an answer, an error, an upstream failure, a failed stream and a client abort mid-stream', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits, maxInFlight: 1 });
  const openai = openaiOf(gateway, key);
  const history = () => fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });

  // A stream the simulator paces (a chunk every 100 ms, 400 tokens), open until the client hangs up.
  const controller = new AbortController();
  const stream = await openai.chat.completions.create(
    { model: 'sim/chat', stream: true, messages: [{ role: 'user', content: 'A long story [[sim:tokens=400]] [[sim:delay=100]]' }] },
    { signal: controller.signal },
  );
  const chunks = stream[Symbol.asyncIterator]();
  await chunks.next(); // the stream is under way: its request holds the key's one slot

  const refused = await history();
  t.is(refused.status, 429);
  t.is(refused.headers.get('retry-after'), '1');
  t.is(refused.headers.get('retry-after-ms'), '1000');
  const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
  t.like(body.error, { type: 'rate_limit_error', code: 'too_many_requests_in_flight' });
  t.regex(body.error.message, /may have 1 in flight/);
  await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', messages: question }), { instanceOf: OpenAI.RateLimitError });

  controller.abort(); // the client leaves mid-stream
  await eventually(async () => (await history()).status === 200, { what: 'the aborted stream gives its slot back' });

  // Each of these ends in its own way; the next request is admitted only if it gave the slot back.
  await openai.chat.completions.create({ model: 'sim/chat', messages: question });
  t.is((await history()).status, 200, 'after an answer');
  const invalid = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', messages: 'not a list' }),
  });
  t.is(invalid.status, 422);
  t.is((await history()).status, 200, 'after a validation error');
  await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'fail [[sim:status=500]]' }] }));
  t.is((await history()).status, 200, 'after an upstream failure');
  const failing = await openai.chat.completions.create({ model: 'sim/chat', stream: true, messages: [{ role: 'user', content: 'fail midway [[sim:tokens=40]] [[sim:fail-mid]]' }] });
  try {
    for await (const _chunk of failing);
  } catch {
    // the SDK may raise the in-stream error: either way the stream is over
  }
  t.is((await history()).status, 200, 'after a stream failed midway');
  const streamed = await openai.chat.completions.create({ model: 'sim/chat', stream: true, messages: question });
  for await (const _chunk of streamed);
  t.is((await history()).status, 200, 'after a whole stream');

  // A key without the limit is never refused for it.
  const free = openaiOf(gateway, (await gateway.newClient({ balanceUnits })).key);
  const many = await Promise.all([1, 2, 3].map(() => free.chat.completions.create({ model: 'sim/chat', messages: question })));
  t.is(many.length, 3);
});
