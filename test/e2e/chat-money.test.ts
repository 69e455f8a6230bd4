// Money and failure paths of chat through the real pipeline: concurrency against a small
// balance, aborted and failed streams, streams without usage, upstream errors, prompt cache
// billing, the max_tokens rule, capability and scope refusals.
import net from 'node:net';
import type { ExecutionContext } from 'ava';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import type { ChatRequest } from '../../src/model/chat.js';
import { countTextTokens, estimateInputTokens } from '../../src/model/token-estimate.js';
import { startSimulator } from '../../src/sim/server.js';
import { expectedChargeUnits, startChatGateway } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';

/**
 * A loopback proxy for one upstream connection: `closed` resolves when that connection closes,
 * with whether the upstream's stream had ended ("data: [DONE]" passed) by then.
 */
async function startWatchingProxy(t: ExecutionContext, targetPort: string): Promise<{ port: number; closed: Promise<boolean> }> {
  let resolveClosed: (ended: boolean) => void = () => undefined;
  const closed = new Promise<boolean>((resolve) => (resolveClosed = resolve));
  const server = net.createServer((client) => {
    const target = net.connect(Number(targetPort), '127.0.0.1');
    let seen = '';
    target.on('data', (chunk: Buffer) => (seen = (seen + chunk.toString('latin1')).slice(-64)) && client.write(chunk));
    let ended = false;
    target.on('data', () => (ended ||= seen.includes('data: [DONE]')));
    client.pipe(target);
    const close = () => {
      resolveClosed(ended);
      client.destroy();
      target.destroy();
    };
    client.once('close', close);
    target.once('close', close);
    client.on('error', () => undefined);
    target.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, closed };
}

const usageOf = (u: any) => ({ input: u.prompt_tokens, cached: u.prompt_tokens_details?.cached_tokens ?? 0, output: u.completion_tokens });

testOnBackends('40 concurrent requests against a balance covering about 10: never negative, charges equal the drop, the rest are 402', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  // Worst case per request: ~30 input tokens + 1000 output tokens at 40 RUB/1M ≈ 0.0403 RUB.
  const { key, accountId } = await gateway.newClient({ balanceUnits: 4_100n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const results = await Promise.allSettled(
    Array.from({ length: 40 }, () => openai.chat.completions.create({ model: 'openai/chat', max_tokens: 1000, messages: [{ role: 'user', content: 'Hi [[sim:delay=5]]' }] })),
  );
  const ok = results.filter((r) => r.status === 'fulfilled');
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  // Every request holds the same worst case; refusals place no hold, so one hold per success.
  const holds = await database.db('holds').where({ account_id: accountId });
  t.is(holds.length, ok.length, 'one hold per answered request, none for a refused one');
  const holdUnits = BigInt(holds[0].amount_units);
  t.true(holds.every((hold) => BigInt(hold.amount_units) === holdUnits), 'every request holds the same worst case');
  // Not an exact count: a request that settles before a later one arrives gives back the part
  // of its hold it did not use, so how many more fit depends on timing. The holds that fit the
  // balance at once always succeed.
  t.true(ok.length >= Number(4_100n / holdUnits), `${ok.length} succeeded, ${4_100n / holdUnits} fit at once`);
  t.is(4_100n / holdUnits, 10n, 'the balance covers 10 worst cases, as the comment says');
  t.is(refused.length, 40 - ok.length);
  t.true(refused.length > 0, 'the balance does not cover 40');
  t.true(refused.every((r) => r.reason instanceof OpenAI.APIError && r.reason.status === 402), 'every refusal is a 402');
  const balance = await gateway.services.ledger.balance(accountId);
  t.true(balance.balanceUnits >= 0n);
  t.is(balance.heldUnits, 0n);
  const charges = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).sum({ total: 'amount_units' }).first();
  t.is(4_100n + BigInt(charges!.total), balance.balanceUnits, 'the charges sum to the balance drop');
  const expected = ok.reduce((sum, r) => sum + expectedChargeUnits(usageOf((r as PromiseFulfilledResult<any>).value.usage)), 0n);
  t.is(-BigInt(charges!.total), expected);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('an aborted stream stops the upstream at once and is charged for what was delivered; no hold is left', async (t, database) => {
  // The openai route reaches a simulator through a watching proxy: it tells when the gateway
  // hangs up the upstream connection, and whether the upstream had finished by then.
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const upstream = await startWatchingProxy(t, new URL(simulator.url).port);
  const watched = await startChatGateway(t, database, { providers: { openai: { kind: 'openai', base_url: `http://127.0.0.1:${upstream.port}/v1`, api_key_env: 'TEST_UPSTREAM_KEY' } } });
  const { key, accountId } = await watched.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${watched.url}/v1`, apiKey: key, maxRetries: 0 });
  const controller = new AbortController();
  const stream = await openai.chat.completions.create(
    { model: 'openai/chat', stream: true, messages: [{ role: 'user', content: 'Tell me a long story [[sim:tokens=400]] [[sim:delay=30]]' }] },
    { signal: controller.signal },
  );
  let received = '';
  try {
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta?.content ?? '';
      if (received.length > 40 && !controller.signal.aborted) controller.abort();
    }
  } catch {
    // the SDK may end the iteration or throw on abort; either way the client is gone
  }
  t.true(received.length > 40 && received.length < 1200, 'only the beginning was received');
  // The upstream connection closes: the gateway hung up before the simulator's last event (the
  // rest of the 400 tokens, 30 ms apart, was seconds away), so it did not read the stream out.
  t.false(await upstream.closed, 'the upstream connection was closed before the stream ended');
  const record = await eventually(
    async () => {
      await watched.services.usageRecords.flush();
      return database.db('usage_records').where({ account_id: accountId }).first();
    },
    { what: 'the usage record of the aborted request', intervalMs: 50 },
  );
  t.is(record.status, 'aborted');
  t.true(Boolean(record.estimated), 'no upstream usage came: counted from the text');
  t.true(record.output_tokens > 0 && record.output_tokens < 200, `charged for ${record.output_tokens} tokens produced, not the 400 asked`);
  const balance = await watched.services.ledger.balance(accountId);
  t.is(balance.heldUnits, 0n);
  t.is(1_000_000n - balance.balanceUnits, BigInt(record.cost_units));
  t.true(BigInt(record.cost_units) > 0n);
});

testOnBackends('a mid-stream upstream failure ends the stream with an in-stream error and charges what was delivered', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const stream = anthropic.messages.stream({ model: 'anthropic/chat', max_tokens: 1024, messages: [{ role: 'user', content: 'Go [[sim:fail-mid]] [[sim:tokens=60]]' }] });
  let text = '';
  stream.on('text', (delta) => (text += delta));
  await t.throwsAsync(stream.finalMessage());
  t.true(text.length > 0, 'part of the answer arrived first');
  await gateway.services.usageRecords.flush();
  const record = await database.db('usage_records').where({ account_id: accountId }).first();
  t.is(record.status, 'failed');
  t.true(record.output_tokens > 0);
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.heldUnits, 0n);
  t.is(1_000_000n - balance.balanceUnits, BigInt(record.cost_units));
});

testOnBackends('an upstream failure before any output is a JSON error (stream or not), charges nothing and releases the hold', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  for (const stream of [false, true]) {
    const error = await t.throwsAsync(openai.chat.completions.create({ model: 'compat/chat', stream, messages: [{ role: 'user', content: 'x [[sim:status=500]]' }] }) as Promise<unknown>);
    t.is((error as any).status, 502);
    t.regex((error as any).message, /upstream/i);
    t.is((error as any).headers.get('x-should-retry'), 'true');
  }
  const invalid = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'compat/chat', stream: true, messages: [{ role: 'user', content: 'x [[sim:status=500]]' }] }),
  });
  t.is(invalid.status, 502, 'a failing stream is never a 200 with an error inside');
  t.regex(invalid.headers.get('content-type')!, /json/);
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.balanceUnits, 1_000_000n);
  t.is(balance.heldUnits, 0n);
});

testOnBackends('a stream that ends without usage is counted from its text and flagged; usage inside a chunk with choices is not lost', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const noUsage = await openai.chat.completions.stream({ model: 'openai/chat', messages: [{ role: 'user', content: 'hello [[sim:no-usage]]' }], stream_options: { include_usage: true } }).finalChatCompletion();
  t.regex(noUsage.choices[0]!.message.content!, /Simulated answer/);
  await gateway.services.usageRecords.flush();
  const record = await database.db('usage_records').where({ account_id: accountId }).orderBy('id', 'desc').first();
  t.true(Boolean(record.estimated));
  t.is(record.output_tokens, countTextTokens(noUsage.choices[0]!.message.content!), 'counted from the text delivered, never zero');
  t.is(BigInt(record.cost_units), expectedChargeUnits({ input: record.input_tokens, cached: 0, output: record.output_tokens }));

  const system = 'You are a very careful assistant. '.repeat(20);
  const ask = () =>
    openai.chat.completions.stream({ model: 'openai/chat', messages: [{ role: 'system', content: system }, { role: 'user', content: 'first' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again [[sim:usage-in-choice]]' }], stream_options: { include_usage: true } }).finalChatCompletion();
  await ask();
  const cachedRun = await ask();
  t.true(cachedRun.usage!.prompt_tokens_details!.cached_tokens! > 0, 'cached tokens reported');
  const charge = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).orderBy('id', 'desc').first();
  t.is(-BigInt(charge.amount_units), expectedChargeUnits(usageOf(cachedRun.usage)), 'cached tokens billed at the cached price');
});

testOnBackends('prompt caching over the Anthropic protocol: the gateway places the breakpoints, the second turn reads the cache', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const system = 'You answer questions about the weather with great care. '.repeat(20);
  const conversation = [
    { role: 'user' as const, content: 'First question' },
    { role: 'assistant' as const, content: 'First answer' },
    { role: 'user' as const, content: 'Second question' },
  ];
  const first = await anthropic.messages.create({ model: 'anthropic/chat', max_tokens: 256, system, messages: conversation });
  const second = await anthropic.messages.create({ model: 'anthropic/chat', max_tokens: 256, system, messages: conversation });
  // The first turn writes the prefix up to the last breakpoint; the same turn again reads all of it.
  t.true(first.usage.cache_creation_input_tokens! > 0, JSON.stringify(first.usage));
  t.is(first.usage.cache_read_input_tokens, 0);
  t.is(second.usage.cache_read_input_tokens, first.usage.cache_creation_input_tokens);
  t.is(second.usage.cache_creation_input_tokens, 0);
  t.is(second.usage.input_tokens, first.usage.input_tokens);
});

testOnBackends('max_tokens rule: an unaffordable max_tokens is a 402 naming the affordable value; without one the budget is clamped', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 200n }); // 0.02 RUB: about 500 output tokens
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const error = await t.throwsAsync(openai.chat.completions.create({ model: 'openai/chat', max_tokens: 8000, messages: [{ role: 'user', content: 'hi' }] }));
  t.is((error as any).status, 402);
  t.regex((error as any).message, /max_tokens up to \d+/);
  const clamped = await openai.chat.completions.create({ model: 'openai/chat', messages: [{ role: 'user', content: 'hi' }] });
  t.is(clamped.choices[0]!.finish_reason, 'stop');
  const poor = await gateway.newClient({ balanceUnits: 5n });
  const broke = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: poor.key, maxRetries: 0 });
  t.is(((await t.throwsAsync(broke.chat.completions.create({ model: 'openai/chat', messages: [{ role: 'user', content: 'hi' }] }))) as any).status, 402);
});

testOnBackends('validation and scope refusals happen before anything is held or sent upstream', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n, scopes: ['chat'] });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const effort = (await t.throwsAsync(openai.chat.completions.create({ model: 'sim/reasoning', reasoning_effort: 'xhigh' as any, messages: [{ role: 'user', content: 'hi' }] }))) as any;
  t.is(effort.status, 422);
  const raw = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/reasoning', reasoning_effort: 'xhigh', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.deepEqual(((await raw.json()) as any).detail[0].loc, ['body', 'reasoning_effort']);
  t.regex(effort.message, /reasoning_effort "xhigh" is not supported/); // quoted as sent (issue 34 item 2)
  t.is((await openai.chat.completions.create({ model: 'sim/reasoning', reasoning_effort: 'none' as any, messages: [{ role: 'user', content: 'hi' }] })).object, 'chat.completion');
  t.is(((await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', reasoning_effort: 'low', messages: [{ role: 'user', content: 'hi' }] }))) as any).status, 422);
  const missing = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(missing.status, 422);
  const missingBody = (await missing.json()) as any;
  t.deepEqual(missingBody.detail[0].loc, ['body', 'max_tokens']);
  t.is(missingBody.detail[0].type, 'missing');
  t.is(missingBody.type, 'error');
  const stateful = (await t.throwsAsync(openai.responses.create({ model: 'sim/chat', input: 'hi', previous_response_id: 'resp_1' }))) as any;
  t.is(stateful.status, 422);
  t.regex(stateful.message, /stateless/);
  const search = (await t.throwsAsync(openai.chat.completions.create({ model: 'sim/search', messages: [{ role: 'user', content: 'news' }] }))) as any;
  t.is(search.status, 403);
  t.regex(search.message, /"search" scope/);
  t.is(((await t.throwsAsync(anthropic.messages.create({ model: 'sim/nope', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }))) as any).status, 404);
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.balanceUnits, 1_000_000n - (await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).sum({ s: 'amount_units' }).first().then((r) => -BigInt(r!.s ?? 0))));
  t.is(balance.heldUnits, 0n);
});

testOnBackends('search models cite their sources in every dialect; count_tokens answers without charging', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  for (const model of ['compat/search', 'sim/search', 'anthropic/search']) {
    const chat = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'latest news' }] });
    const annotations = (chat.choices[0]!.message as any).annotations;
    t.true(annotations.length >= 1, `${model}: annotations`);
    t.is(annotations[0].type, 'url_citation');
    t.regex(annotations[0].url_citation.url, /^https:\/\//);
    const message = await anthropic.messages.create({ model, max_tokens: 512, messages: [{ role: 'user', content: 'latest news' }] });
    t.true(((message.content[0] as any).citations ?? []).length >= 1, `${model}: citations in messages`);
  }
  const before = await gateway.services.ledger.balance(accountId);
  const counted = await anthropic.messages.countTokens({ model: 'sim/chat', messages: [{ role: 'user', content: 'Count these tokens please' }] });
  const asked: ChatRequest = { model: 'sim/chat', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Count these tokens please' }] }], tools: [], stop: [], stream: false, includeUsage: false };
  t.is(counted.input_tokens, estimateInputTokens(asked), 'the gateway\'s own estimate of the request');
  t.deepEqual(await gateway.services.ledger.balance(accountId), before);
});

testOnBackends('a stream cut after the upstream reported only its opening usage is billed for what was produced', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const stream = anthropic.messages.stream({ model: 'anthropic/chat', max_tokens: 2048, messages: [{ role: 'user', content: 'Go [[sim:drop]] [[sim:tokens=200]]' }] });
  let text = '';
  stream.on('text', (delta) => (text += delta));
  await t.throwsAsync(stream.finalMessage());
  t.true(text.length > 100);
  await gateway.services.usageRecords.flush();
  const record = await database.db('usage_records').where({ account_id: accountId }).first();
  t.is(record.status, 'failed');
  t.true(record.output_tokens >= Math.ceil(text.length / 4), `billed ${record.output_tokens} output tokens for ${text.length} characters delivered`);
  t.true(Boolean(record.estimated));
});

testOnBackends('a usage record is dated by the process clock (services.now), as the ledger row of its charge; an uncharged one too', async (t, database) => {
  const { testClock } = await import('../helpers/clock.js');
  const clock = testClock({ start: Date.UTC(2031, 0, 2, 3, 4, 5) });
  const gateway = await startChatGateway(t, database, { now: clock.now });
  const { accountId, key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const completion = await openai.chat.completions.create({ model: 'sim/chat', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] });
  const requestId = completion._request_id!;
  await gateway.services.usageRecords.flush(); // SQLite: the charged record by way of the outbox
  const record = await database.db('usage_records').where({ request_id: requestId }).first();
  const charge = await database.db('ledger_transactions').where({ request_id: requestId, kind: 'charge' }).first();
  t.is(Number(record.created_at), clock.now());
  t.is(Number(charge.created_at), clock.now());
  // A request that fails upstream before any output: charged nothing, its record batched.
  await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', max_tokens: 20, messages: [{ role: 'user', content: 'x [[sim:status=500]]' }] }));
  await gateway.services.usageRecords.flush();
  const failed = await database.db('usage_records').where({ account_id: accountId, status: 'failed' }).first();
  t.is(Number(failed.created_at), clock.now());
});
