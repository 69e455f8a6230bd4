import test from 'ava';
import OpenAI from 'openai';
import { countRun, createTestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

async function gateway(t: Parameters<typeof startGateway>[0], env: Record<string, string> = {}) {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  countRun('sqlite');
  return startGateway(t, database, { env });
}

test('the OpenAI SDK lists the catalog without a key; every simulator model is there with prices and capabilities', async (t) => {
  const { url } = await gateway(t);
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-needed' });
  const models = [];
  for await (const model of client.models.list()) models.push(model as unknown as Record<string, any>);
  const ids = models.map((m) => m.id);
  for (const id of ['sim/chat', 'sim/reasoning', 'sim/search', 'sim/decision', 'sim/image', 'sim/image-upscale', 'sim/tts', 'sim/stt', 'sim/embedding-small', 'sim/embedding-large', 'sim/video', 'sim/video-upscale', 'sim/song', 'sim/instrumental']) {
    t.true(ids.includes(id), `${id} is listed`);
  }
  t.false(ids.includes('openai/gpt-4o-mini'), 'vendor models are hidden while their key env var is unset');
  const chat = models.find((m) => m.id === 'sim/chat')!;
  t.is(chat.object, 'model');
  t.is(typeof chat.created, 'number');
  t.is(chat.owned_by, 'sim');
  t.is(chat.type, 'text');
  t.deepEqual(Object.keys(chat.capabilities).sort(), ['can_disable_reasoning', 'context_window', 'max_output_tokens', 'reasoning_efforts', 'tools', 'vision']);
  t.regex(chat.pricing.per_1m_input_tokens.rub, /^\d+(\.\d+)?$/);
  t.regex(chat.pricing.per_1m_input_tokens.usd, /^\d+(\.\d+)?$/);
  t.is(chat.pricing.per_1m_input_tokens.unit, '1M input tokens');
  const reasoning = models.find((m) => m.id === 'sim/reasoning')!;
  t.deepEqual(reasoning.capabilities.reasoning_efforts, ['minimal', 'low', 'medium', 'high'], 'as config/gateway.example.yaml declares');
  t.true(reasoning.capabilities.can_disable_reasoning);
  const image = models.find((m) => m.id === 'sim/image')!;
  t.is(image.references, true);
});

test('a vendor model appears once its key env var is set, and resolves by id and by alias', async (t) => {
  const { url } = await gateway(t, { OPENAI_API_KEY: 'sk-test' });
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-needed' });
  const model = (await client.models.retrieve('openai/gpt-4o-mini')) as unknown as Record<string, any>;
  t.is(model.id, 'openai/gpt-4o-mini');
  t.true(model.aliases.includes('gpt-4o-mini'));
  const byAlias = (await client.models.retrieve('gpt-4o-mini')) as unknown as Record<string, any>;
  t.is(byAlias.id, 'openai/gpt-4o-mini');
});

test('an unknown model is a 404 naming the closest ids; ids match character for character', async (t) => {
  const { url } = await gateway(t);
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
  const error = await t.throwsAsync(client.models.retrieve('sim/chta'), { instanceOf: OpenAI.NotFoundError });
  t.regex(error!.message, /"sim\/chat"/);
  t.is(error!.code, 'model_not_found');
  t.truthy(error!.requestID);
  await t.throwsAsync(client.models.retrieve('SIM/CHAT'), { instanceOf: OpenAI.NotFoundError });
});

test('GET /v1/models is not rate limited and carries request ids', async (t) => {
  const { url } = await gateway(t);
  for (let i = 0; i < 80; i++) {
    const response = await fetch(`${url}/v1/models`);
    t.is(response.status, 200);
    await response.arrayBuffer();
  }
  const response = await fetch(`${url}/v1/models`);
  t.regex(response.headers.get('x-request-id')!, /^req_/);
  t.is(response.headers.get('request-id'), response.headers.get('x-request-id'));
  t.is(response.headers.get('x-ratelimit-limit-requests'), null);
});

test('dall-e-3 and gpt-image-1 reach the simulator image model until OpenAI is configured, then OpenAI', async (t) => {
  const withoutKey = await gateway(t);
  const client = new OpenAI({ baseURL: `${withoutKey.url}/v1`, apiKey: 'not-needed' });
  t.is(((await client.models.retrieve('dall-e-3')) as any).id, 'sim/image');
  t.is(((await client.models.retrieve('gpt-image-1')) as any).id, 'sim/image');
  const withKey = await gateway(t, { OPENAI_API_KEY: 'sk-test' });
  const openaiClient = new OpenAI({ baseURL: `${withKey.url}/v1`, apiKey: 'not-needed' });
  t.is(((await openaiClient.models.retrieve('dall-e-3')) as any).id, 'openai/dall-e-3');
  t.is(((await openaiClient.models.retrieve('gpt-image-1')) as any).id, 'openai/gpt-image-1');
});
