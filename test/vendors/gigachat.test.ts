// The GigaChat adapters: golden fixtures of its chat (test/fixtures/vendors/gigachat/, written
// from the GigaChat API reference and its function-calling guide), and what fixtures cannot
// pin: function calls (their ids are made here, GigaChat gives none), embeddings, and the
// OAuth exchange and its token cache (against the simulator's OAuth endpoint).
import test from 'ava';
import { z } from 'zod';
import { startSimulator } from '../../src/sim/server.js';
import type { MediaHttpResponse } from '../../src/vendors/media-types.js';
import { createDispatcher, type CredentialSource } from '../../src/vendors/shared/http-transport.js';
import { UpstreamError } from '../../src/vendors/types.js';
import { gigachatCredentials, tokenRenewalMarginMs } from '../../src/vendors/gigachat/credentials.js';
import { gigachatEmbeddingsOperation } from '../../src/vendors/gigachat/embeddings.js';
import { gigachatChatAdapter, gigachatVendor } from '../../src/vendors/gigachat/vendor.js';
import { chatRequest, parseEvents, testFixtures } from './fixtures.js';
import { streamViolations } from './stream-invariants.js';

const target = {
  model: 'GigaChat-2',
  baseUrl: 'https://gigachat.devices.sberbank.ru',
  apiKey: 'eyJjdHkiOiJqd3QiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIiwiYWxnIjoiUlNBLU9BRVAtMjU2In0',
  capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: false, tools: true, maxOutputTokens: 8192 },
  maxOutputTokens: 1024,
  search: false,
};

testFixtures('gigachat', gigachatChatAdapter, target);

test('gigachat: a function_call delta (object arguments, the call whole) is one tool call with a made-up id', (t) => {
  const chunk = {
    choices: [
      {
        delta: { role: 'assistant', content: '', function_call: { name: 'weather_forecast', arguments: { location: 'Москва', format: 'celsius' } }, functions_state_id: '77d3fb14-457a-46ba-937e-8d856156d003' },
        index: 0,
        finish_reason: 'function_call',
      },
    ],
    created: 1700471392,
    model: 'GigaChat-2:2.0.28.2',
    object: 'chat.completion',
    usage: { prompt_tokens: 150, completion_tokens: 35, total_tokens: 185, precached_prompt_tokens: 0 },
  };
  const { parts, error } = parseEvents(gigachatChatAdapter, target, [{ data: JSON.stringify(chunk) }, { data: '[DONE]' }]);
  t.is(error, undefined);
  t.deepEqual(streamViolations(parts), []);
  const start = parts.find((part) => part.type === 'tool_call_start')!;
  t.like(start, { type: 'tool_call_start', index: 0, name: 'weather_forecast' });
  t.regex((start as { id: string }).id, /^call_[0-9a-f]{24}$/);
  t.deepEqual(parts.filter((part) => part.type === 'tool_call_delta'), [{ type: 'tool_call_delta', index: 0, argumentsDelta: '{"location":"Москва","format":"celsius"}' }]);
  t.deepEqual(parts.at(-1), { type: 'finish', finishReason: 'tool_calls', rawFinishReason: 'function_call' });
  const second = parseEvents(gigachatChatAdapter, target, [{ data: JSON.stringify(chunk) }, { data: '[DONE]' }]).parts.find((part) => part.type === 'tool_call_start');
  t.not((second as { id: string }).id, (start as { id: string }).id, 'each answer\'s call has its own id');
});

test('gigachat: the vendor takes a scope (one of the three) and an OAuth URL', (t) => {
  const settings = z.object(gigachatVendor.providerSettings!);
  t.true(settings.safeParse({}).success);
  t.true(settings.safeParse({ scope: 'GIGACHAT_API_B2B', auth_url: 'https://ngw.devices.sberbank.ru:9443/api/v2/oauth' }).success);
  t.false(settings.safeParse({ scope: 'GIGACHAT_API_OTHER' }).success);
  t.is(gigachatVendor.defaultBaseUrl, 'https://gigachat.devices.sberbank.ru');
  t.is(typeof gigachatVendor.credentials, 'function');
});

test('gigachat embeddings: the reference\'s request, the tokens summed over the vectors', async (t) => {
  const request = { input: ['Расскажи о современных технологиях', 'Какие новинки в мире IT?'] };
  const built = gigachatEmbeddingsOperation.build(request, { model: 'Embeddings', baseUrl: 'https://gigachat.devices.sberbank.ru/api/v1', apiKey: 'tok' });
  t.deepEqual(built, {
    url: 'https://gigachat.devices.sberbank.ru/api/v1/embeddings',
    method: 'POST',
    headers: { authorization: 'Bearer tok' },
    body: { json: { model: 'Embeddings', input: ['Расскажи о современных технологиях', 'Какие новинки в мире IT?'] } },
  });
  const answer = {
    object: 'list',
    data: [
      { object: 'embedding', embedding: [0.25, -0.5], index: 1, usage: { prompt_tokens: 7 } },
      { object: 'embedding', embedding: [0.125, 0.75], index: 0, usage: { prompt_tokens: 6 } },
    ],
    model: 'Embeddings',
  };
  const response: MediaHttpResponse = { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(answer)) };
  t.deepEqual(await gigachatEmbeddingsOperation.parse(response, request, { model: 'Embeddings', baseUrl: 'x' }), { vectors: [[0.125, 0.75], [0.25, -0.5]], inputTokens: 13 });
});

test('gigachat credentials: one exchange serves until a minute before expires_at, then another is made', async (t) => {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const dispatcher = createDispatcher();
  t.teardown(() => dispatcher.close());
  const source: CredentialSource = {
    name: 'gigachat-credentials-test',
    baseUrl: `${simulator.url}/gigachat`,
    apiKey: Buffer.from('id:secret').toString('base64'),
    settings: { scope: 'GIGACHAT_API_B2B', auth_url: `${simulator.url}/gigachat/api/v2/oauth` },
    secrets: {},
    dispatcher,
    timeoutMs: 10_000,
  };
  const issued = async () => ((await (await fetch(`${simulator.url}/gigachat/__stats`)).json()) as { tokens_issued: number }).tokens_issued;
  const signal = AbortSignal.timeout(10_000);
  const start = Date.now();
  const [first, concurrent] = await Promise.all([gigachatCredentials(source, signal, () => start), gigachatCredentials(source, signal, () => start)]);
  t.is(first, concurrent, 'requests arriving together share one exchange');
  t.is(await issued(), 1);
  // The simulator's tokens live 30 minutes.
  const expiresAt = start + 30 * 60 * 1000;
  t.is(await gigachatCredentials(source, signal, () => expiresAt - tokenRenewalMarginMs - 5_000), first, 'still well before expiry: the cached token');
  t.is(await issued(), 1);
  const renewed = await gigachatCredentials(source, signal, () => expiresAt);
  t.not(renewed, first, 'past the renewal margin: a new token');
  t.is(await issued(), 2);
});

test('gigachat credentials: a refused authorization key is a non-retryable 401', async (t) => {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const dispatcher = createDispatcher();
  t.teardown(() => dispatcher.close());
  const source: CredentialSource = {
    name: 'gigachat-refused',
    baseUrl: simulator.url,
    apiKey: 'not a key',
    settings: { auth_url: `${simulator.url}/gigachat/api/v2/oauth` },
    secrets: {},
    dispatcher,
    timeoutMs: 10_000,
  };
  const error = await t.throwsAsync(gigachatCredentials(source, AbortSignal.timeout(10_000)));
  t.true(error instanceof UpstreamError);
  t.like(error, { status: 401, retryable: false });
  t.regex(error!.message, /refused the token exchange: Can't decode 'Authorization' header/);
  const missing = await t.throwsAsync(gigachatCredentials({ ...source, apiKey: undefined }, AbortSignal.timeout(10_000)));
  t.like(missing, { status: 401, retryable: false });
});

test('gigachat: a call of the structured-output function is the answer\'s text and a stop', (t) => {
  const chunk = {
    choices: [{ delta: { role: 'assistant', content: '', function_call: { name: 'structured_output', arguments: { city: 'Москва' } } }, index: 0, finish_reason: 'function_call' }],
    created: 1700471392,
    model: 'GigaChat-2:2.0.28.2',
    object: 'chat.completion',
    usage: { prompt_tokens: 60, completion_tokens: 9, total_tokens: 69 },
  };
  const request = chatRequest({ responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { city: { type: 'string' } } } } });
  const { parts, error } = parseEvents(gigachatChatAdapter, target, [{ data: JSON.stringify(chunk) }, { data: '[DONE]' }], request);
  t.is(error, undefined);
  t.deepEqual(parts, [
    { type: 'start', id: '', model: 'GigaChat-2:2.0.28.2' },
    { type: 'text_start', index: 0 },
    { type: 'text_delta', index: 0, text: '{"city":"Москва"}' },
    { type: 'text_end', index: 0 },
    { type: 'usage', usage: { inputTokens: 60, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 9, reasoningTokens: 0 } },
    { type: 'finish', finishReason: 'stop', rawFinishReason: 'stop' },
  ]);
});
