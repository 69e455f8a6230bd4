// A chat request larger than the model's context window (capabilities.context_window) is refused
// before anything is held: nothing held, nothing charged, no usage record, nothing sent upstream,
// with the vendor's own error shape on each of the three chat routes (issue 13, item 12: a
// 2.36M-token prompt to a 128k model used to be sent and charged). Without max_tokens the output
// budget sent upstream is clamped to the room the input leaves.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startSimulator } from '../../src/sim/server.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { startChatGateway, testPrices } from '../helpers/chat-gateway.js';

const contextWindow = 1_000;
/** The gateway's plain estimate of one user message of `characters` characters: 4 per token, 3 per message. */
const estimateOf = (characters: number) => Math.ceil(characters / 4) + 3;

testOnBackends('a request over the context window is refused in each vendor shape on all three chat routes, nothing held, charged, recorded or sent upstream', async (t, database) => {
  // The model's upstream is the simulator behind a proxy that counts what reaches it.
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const upstreamRequests: string[] = [];
  const proxy = createServer((incoming, outgoing) => {
    upstreamRequests.push(incoming.url ?? '');
    const forward = httpRequest(`${simulator.url}${incoming.url}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  const gateway = await startChatGateway(t, database, {
    providers: { counted: { kind: 'openai', base_url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`, api_key_env: 'TEST_UPSTREAM_KEY' } },
    models: [{ id: 'window/chat', name: 'small window', type: 'text', route: { provider: 'counted', model: 'chat' }, pricing: testPrices, capabilities: { max_output_tokens: 8192, context_window: contextWindow } }],
  });
  const balanceUnits = 1_000_000n;
  const { key, accountId } = await gateway.newClient({ balanceUnits });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });

  const tooLong = 'x'.repeat(8_000); // 2003 tokens by itself
  const nearlyFull = 'x'.repeat(2_400); // 603 tokens, leaving 397 for the output
  const openaiError = async (call: Promise<unknown>) => {
    const error = await t.throwsAsync(call, { instanceOf: OpenAI.APIError });
    return { status: error!.status, error: error!.error };
  };
  const openaiShape = (param: string, message: string) => ({ status: 400, error: { message, type: 'invalid_request_error', param, code: 'context_length_exceeded' } });

  t.deepEqual(
    await openaiError(openai.chat.completions.create({ model: 'window/chat', messages: [{ role: 'user', content: tooLong }] })),
    openaiShape('messages', `This model's maximum context length is 1000 tokens. However, your messages resulted in ${estimateOf(8_000)} tokens. Please reduce the length of the messages.`),
  );
  t.is(estimateOf(8_000), 2_003);
  t.deepEqual(
    await openaiError(openai.chat.completions.create({ model: 'window/chat', stream: true, max_tokens: 500, messages: [{ role: 'user', content: nearlyFull }] })),
    openaiShape('messages', `This model's maximum context length is 1000 tokens. However, you requested 1103 tokens (603 in the messages, 500 in the completion). Please reduce the length of the messages or completion.`),
  );
  t.deepEqual(
    await openaiError(openai.responses.create({ model: 'window/chat', input: tooLong })),
    openaiShape('input', `This model's maximum context length is 1000 tokens. However, your input resulted in 2003 tokens. Please reduce the length of the input.`),
  );
  t.deepEqual(
    await openaiError(openai.responses.create({ model: 'window/chat', input: nearlyFull, max_output_tokens: 500 })),
    openaiShape('input', `This model's maximum context length is 1000 tokens. However, you requested 1103 tokens (603 in the input, 500 in the completion). Please reduce the length of the input or completion.`),
  );

  const anthropicError = async (call: Promise<unknown>) => {
    const error = await t.throwsAsync(call, { instanceOf: Anthropic.APIError });
    return { status: error!.status, type: (error!.error as any).type, error: (error!.error as any).error };
  };
  t.deepEqual(await anthropicError(anthropic.messages.create({ model: 'window/chat', max_tokens: 100, messages: [{ role: 'user', content: tooLong }] })), {
    status: 400,
    type: 'error',
    error: { type: 'invalid_request_error', message: 'prompt is too long: 2003 tokens > 1000 maximum' },
  });
  t.deepEqual(await anthropicError(anthropic.messages.create({ model: 'window/chat', max_tokens: 500, stream: true, messages: [{ role: 'user', content: nearlyFull }] })), {
    status: 400,
    type: 'error',
    error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 603 + 500 > 1000, decrease input length or `max_tokens` and try again' },
  });

  t.deepEqual(upstreamRequests, [], 'nothing was sent upstream');
  const balance = await gateway.services.ledger.balance(accountId);
  t.deepEqual([balance.balanceUnits, balance.heldUnits], [balanceUnits, 0n], 'balance whole, nothing held');
  t.deepEqual(
    (await database.db('ledger_transactions').where({ account_id: accountId }).select('kind')).map((row) => row.kind),
    ['topup'],
    'the ledger holds only the top-up',
  );
  t.is(Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n), 0, 'no hold was ever placed');
  await gateway.services.usageRecords.flush();
  t.deepEqual(await database.db('usage_records').where({ account_id: accountId }).select('request_id'), [], 'no usage record');

  // Without max_tokens, the model's cap (8192) is clamped to the room the input leaves (397),
  // which the simulator honours: the answer stops there.
  const asksForMore = `${'x'.repeat(2_400 - 19)}[[sim:tokens=2000]]`;
  t.is(estimateOf(asksForMore.length), 603);
  const clamped = await openai.chat.completions.create({ model: 'window/chat', messages: [{ role: 'user', content: asksForMore }] });
  t.deepEqual([clamped.usage?.completion_tokens, clamped.choices[0]?.finish_reason], [contextWindow - 603, 'length']);
  t.is(upstreamRequests.length, 1);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a model without a declared context window is not checked', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const answer = await openai.chat.completions.create({ model: 'openai/chat', max_tokens: 16, messages: [{ role: 'user', content: 'x'.repeat(40_000) }] });
  t.is(answer.choices[0]?.finish_reason, 'length');
  await assertLedgerInvariants(t, database.db);
});
