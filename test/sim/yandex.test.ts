// The simulator's Yandex prefix: the completion whole and streamed (cumulative lines that end
// in the whole answer), its validation and errors in Yandex's shape, YandexART's operations.
import test from 'ava';
import { startSimulator } from '../../src/sim/server.js';

async function simulator(t: import('ava').ExecutionContext) {
  const sim = await startSimulator({ port: 0 });
  t.teardown(() => sim.close());
  const post = (path: string, body: unknown, authorization = 'Api-Key AQVNkey') =>
    fetch(`${sim.url}/yandex${path}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { sim, post };
}

const completion = (stream: boolean, text = 'To be, or not to be') => ({
  modelUri: 'gpt://b1gfolder/yandexgpt/latest',
  completionOptions: { stream, maxTokens: '500' },
  messages: [{ role: 'system', text: 'Translate the text' }, { role: 'user', text }],
});

test('yandex sim: the streamed lines each hold the text so far, and the last equals the whole answer', async (t) => {
  const { post } = await simulator(t);
  const whole = (await (await post('/foundationModels/v1/completion', completion(false))).json()) as any;
  const response = await post('/foundationModels/v1/completion', completion(true));
  t.is(response.status, 200);
  const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line));
  const texts = lines.map((line) => line.result.alternatives[0].message.text as string);
  for (let index = 1; index < texts.length; index++) t.true(texts[index]!.startsWith(texts[index - 1]!), `line ${index} continues line ${index - 1}`);
  t.true(lines.slice(0, -1).every((line) => line.result.alternatives[0].status === 'ALTERNATIVE_STATUS_PARTIAL'));
  t.deepEqual(lines.at(-1).result, whole.result);
  t.is(whole.result.alternatives[0].status, 'ALTERNATIVE_STATUS_FINAL');
  // 2 messages × 3 + "Translate the text" 5 + "To be, or not to be" 5; 20 answer tokens, as strings.
  t.deepEqual(whole.result.usage, { inputTextTokens: '16', completionTokens: '20', totalTokens: '36' });
});

test('yandex sim: maxTokens cuts the answer (TRUNCATED_FINAL); a tool is called with object arguments', async (t) => {
  const { post } = await simulator(t);
  const cut = (await (await post('/foundationModels/v1/completion', { ...completion(false), completionOptions: { maxTokens: '5' } })).json()) as any;
  t.is(cut.result.alternatives[0].status, 'ALTERNATIVE_STATUS_TRUNCATED_FINAL');
  t.is(cut.result.usage.completionTokens, '5');
  const tools = [{ function: { name: 'WeatherTool', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
  const called = (await (await post('/foundationModels/v1/completion', { ...completion(false), tools })).json()) as any;
  t.deepEqual(called.result.alternatives[0], {
    message: { role: 'assistant', toolCallList: { toolCalls: [{ functionCall: { name: 'WeatherTool', arguments: { city: 'sim' } } }] } },
    status: 'ALTERNATIVE_STATUS_TOOL_CALLS',
  });
});

test('yandex sim: refusals in Yandex\'s error shape', async (t) => {
  const { sim, post } = await simulator(t);
  const noKey = await post('/foundationModels/v1/completion', completion(false), '');
  t.is(noKey.status, 401);
  t.like(await noKey.json(), { error: { grpcCode: 16, httpCode: 401, httpStatus: 'Unauthorized' } });
  const badMax = await post('/foundationModels/v1/completion', { ...completion(false), completionOptions: { maxTokens: 500 } });
  t.like(await badMax.json(), { error: { grpcCode: 3, httpCode: 400 } });
  const quota = await post('/foundationModels/v1/completion', completion(false, 'Hi [[sim:status=429]]'));
  t.is(quota.status, 429);
  t.like(await quota.json(), { error: { grpcCode: 8, httpCode: 429, httpStatus: 'Too Many Requests' } });
  const unknown = await fetch(`${sim.url}/yandex/nowhere`, { headers: { authorization: 'Api-Key k' } });
  t.is(unknown.status, 404);
  t.like(await unknown.json(), { error: { grpcCode: 5, httpCode: 404 } });
});

test('yandex sim: YandexART answers an operation, done when polled, with a PNG at the asked ratio', async (t) => {
  const { sim, post } = await simulator(t);
  const body = { modelUri: 'art://b1gfolder/yandex-art/latest', generationOptions: { aspectRatio: { widthRatio: '9', heightRatio: '16' }, mimeType: 'image/png' }, messages: [{ text: 'a lighthouse', weight: '1' }] };
  const operation = (await (await post('/foundationModels/v1/imageGenerationAsync', body)).json()) as any;
  t.is(operation.done, false);
  const poll = await fetch(`${sim.url}/yandex/operations/${operation.id}`, { headers: { authorization: 'Api-Key k' } });
  const done = (await poll.json()) as any;
  t.is(done.done, true);
  const png = Buffer.from(done.response.image, 'base64');
  t.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [576, 1024]);
  t.is((await fetch(`${sim.url}/yandex/operations/nope`, { headers: { authorization: 'Api-Key k' } })).status, 404);
});
