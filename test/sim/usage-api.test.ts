// The simulator's usage API, shaped like OpenAI's organization usage API: what it answered on
// both chat protocols (cache reads in input, cut streams billed whole), in daily buckets grouped
// by model, paged, and read back by the gateway's own usage adapter (the openai one under /v1).
import test from 'ava';
import { readReportedUsage } from '../../src/vendors/shared/usage-transport.js';
import { createDispatcher, type Upstream } from '../../src/vendors/shared/http-transport.js';
import { usageApiFor } from '../../src/vendors/registry.js';
import { startTestSimulator } from './simulator.js';

const day = 86_400;

test('GET /v1/organization/usage/completions: the requests and tokens answered, by day and model; bad queries are 400', async (t) => {
  const { url, openai, anthropic } = await startTestSimulator(t);
  const question = 'What is the capital of France?';
  // 2 messages: 3 each + ceil(9/4) + ceil(30/4) = 17 input tokens, 20 output.
  await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }] });
  await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }] });
  const message = await anthropic.messages.create({ model: 'reasoning', max_tokens: 100, messages: [{ role: 'user', content: question }] });
  // Refused with a status: never billed.
  await t.throwsAsync(openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'no [[sim:status=500]]' }] }));

  const today = Math.floor(Date.now() / 1000 / day) * day;
  const answer = await fetch(`${url}/v1/organization/usage/completions?start_time=${today - day}&end_time=${today + day}&group_by=model&limit=1`);
  t.is(answer.status, 200);
  const firstPage = (await answer.json()) as any;
  t.deepEqual(firstPage, { object: 'page', data: [{ object: 'bucket', start_time: today - day, end_time: today, results: [] }], has_more: true, next_page: firstPage.next_page });
  const secondPage = await (await fetch(`${url}/v1/organization/usage/completions?start_time=${today - day}&end_time=${today + day}&group_by=model&limit=1&page=${firstPage.next_page}`)).json();
  const result = (model: string, requests: number, input: number, output: number) => ({
    object: 'organization.usage.completions.result', input_tokens: input, output_tokens: output, input_cached_tokens: 0, input_audio_tokens: 0, output_audio_tokens: 0,
    num_model_requests: requests, project_id: null, user_id: null, api_key_id: null, model, batch: null,
  });
  const messageInput = message.usage.input_tokens;
  t.deepEqual(secondPage, {
    object: 'page',
    data: [{ object: 'bucket', start_time: today, end_time: today + day, results: [result('chat', 2, 34, 40), result('reasoning', 1, messageInput, message.usage.output_tokens)] }],
    has_more: false,
    next_page: null,
  });
  const ungrouped = (await (await fetch(`${url}/v1/organization/usage/completions?start_time=${today}&end_time=${today + day}`)).json()) as any;
  t.deepEqual(ungrouped.data[0].results, [{ ...result('chat', 3, 34 + messageInput, 40 + message.usage.output_tokens), model: null }]);

  const missing = await fetch(`${url}/v1/organization/usage/completions`);
  t.is(missing.status, 400);
  t.deepEqual(await missing.json(), { error: { message: "Missing required parameter: 'start_time'.", type: 'invalid_request_error', param: 'start_time', code: 'missing_required_parameter' } });
  const badWidth = await fetch(`${url}/v1/organization/usage/completions?start_time=${today}&bucket_width=1w`);
  t.is(badWidth.status, 400);
  t.is(((await badWidth.json()) as any).error.param, 'bucket_width');

  // The gateway's reader: every page, summed per model over the period.
  const api = usageApiFor('sim')!;
  const upstream: Upstream = { name: 'sim', kind: 'sim', baseUrl: url, timeoutMs: 10_000, dispatcher: createDispatcher(), settings: {}, secrets: {} };
  t.teardown(() => upstream.dispatcher.close());
  const reported = await readReportedUsage(upstream, api, { since: (today - 40 * day) * 1000, until: (today + day) * 1000 });
  t.deepEqual([...reported.values()], [
    { upstreamModel: 'chat', requests: 2, inputTokens: 34, cachedInputTokens: 0, outputTokens: 40 },
    { upstreamModel: 'reasoning', requests: 1, inputTokens: messageInput, cachedInputTokens: 0, outputTokens: message.usage.output_tokens },
  ]);
  t.is(usageApiFor('openai'), undefined, 'OpenAI\'s needs an admin key the config does not carry');
  t.is(usageApiFor('anthropic'), undefined);
});
