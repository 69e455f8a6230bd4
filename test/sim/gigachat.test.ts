// The simulator's GigaChat prefix: the OAuth endpoint and its count, the token check, chat
// whole and streamed with a function call, the JSON rule of function results, embeddings.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startSimulator } from '../../src/sim/server.js';

async function simulator(t: import('ava').ExecutionContext) {
  const sim = await startSimulator({ port: 0 });
  t.teardown(() => sim.close());
  const oauth = (headers: Record<string, string>, body = 'scope=GIGACHAT_API_PERS') =>
    fetch(`${sim.url}/gigachat/api/v2/oauth`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  const token = async () => ((await (await oauth({ authorization: 'Basic a2V5', RqUID: randomUUID() })).json()) as { access_token: string }).access_token;
  const post = (path: string, body: unknown, bearer?: string) =>
    fetch(`${sim.url}/gigachat${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body: JSON.stringify(body) });
  return { sim, oauth, token, post };
}

test('gigachat sim: OAuth issues 30-minute tokens and counts them; it refuses a missing key, RqUID or scope', async (t) => {
  const { sim, oauth } = await simulator(t);
  const before = Date.now();
  const answer = await oauth({ authorization: 'Basic a2V5', RqUID: randomUUID() });
  t.is(answer.headers.get('x-sim-tokens-issued'), '1');
  const body = (await answer.json()) as { access_token: string; expires_at: number };
  t.true(body.expires_at >= before + 30 * 60 * 1000 && body.expires_at <= Date.now() + 30 * 60 * 1000);
  t.is((await oauth({ RqUID: randomUUID() })).status, 401);
  t.is((await oauth({ authorization: 'Basic a2V5' })).status, 400);
  t.is((await oauth({ authorization: 'Basic a2V5', RqUID: randomUUID() }, 'scope=OTHER')).status, 400);
  t.deepEqual(await (await fetch(`${sim.url}/gigachat/__stats`)).json(), { tokens_issued: 1 });
});

test('gigachat sim: chat needs a token it issued', async (t) => {
  const { post } = await simulator(t);
  const request = { model: 'GigaChat-2', messages: [{ role: 'user', content: 'Привет' }] };
  for (const bearer of [undefined, 'made-up']) {
    const refused = await post('/api/v1/chat/completions', request, bearer);
    t.is(refused.status, 401);
    t.deepEqual(await refused.json(), { status: 401, message: 'Unauthorized' });
  }
});

test('gigachat sim: a function call, whole and streamed; its JSON answer leads to words', async (t) => {
  const { post, token } = await simulator(t);
  const bearer = await token();
  const functions = [{ name: 'weather_forecast', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } }];
  const request = { model: 'GigaChat-2', messages: [{ role: 'user', content: 'Погода в Москве?' }], functions };
  const whole = (await (await post('/api/v1/chat/completions', request, bearer)).json()) as any;
  t.is(whole.choices[0].finish_reason, 'function_call');
  t.deepEqual(whole.choices[0].message.function_call, { name: 'weather_forecast', arguments: { location: 'sim' } });
  const streamed = await (await post('/api/v1/chat/completions', { ...request, stream: true }, bearer)).text();
  const events = streamed.trim().split('\n\n').map((event) => event.slice('data: '.length));
  t.is(events.at(-1), '[DONE]');
  const last = JSON.parse(events.at(-2)!);
  t.deepEqual(last.choices[0].delta.function_call, whole.choices[0].message.function_call);
  t.deepEqual(last.usage, whole.usage);
  const followUp = [...request.messages, { role: 'assistant', content: '', function_call: whole.choices[0].message.function_call }];
  const notJson = await post('/api/v1/chat/completions', { ...request, messages: [...followUp, { role: 'function', name: 'weather_forecast', content: 'sunny' }] }, bearer);
  t.is(notJson.status, 422);
  const answered = (await (await post('/api/v1/chat/completions', { ...request, messages: [...followUp, { role: 'function', name: 'weather_forecast', content: '{"t": 5}' }] }, bearer)).json()) as any;
  t.true(answered.choices[0].message.content.startsWith('Tool results: {"t": 5}. '));
  t.is(answered.choices[0].finish_reason, 'stop');
});

test('gigachat sim: embeddings are 1024 floats with their own token counts', async (t) => {
  const { post, token } = await simulator(t);
  const answer = (await (await post('/api/v1/embeddings', { model: 'Embeddings', input: ['один', 'два три'] }, await token())).json()) as any;
  t.deepEqual(answer.data.map((entry: any) => [entry.index, entry.embedding.length, entry.usage.prompt_tokens]), [[0, 1024, 2], [1, 1024, 4]]);
});
