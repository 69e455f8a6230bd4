// Issue 14, media wire facts through the official OpenAI SDK over the simulator: embeddings of
// token arrays (item 10), the spec's vendor ids on a fresh install (item 13), the catalog's
// types (item 11).
import OpenAI, { toFile } from 'openai';
import { parseBuffer } from 'music-metadata';
import { priceInUnits } from '../../src/billing/pricing.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';

async function setup(t: Parameters<Parameters<typeof testOnBackends>[1]>[0], database: TestDatabase) {
  const gateway = await startGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 100_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const lastCharge = async () => {
    const row = await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'desc').first();
    return row ? -BigInt(row.amount_units) : 0n;
  };
  return { gateway, client, openai, lastCharge };
}

testOnBackends('embeddings: token arrays [1,2,3] and [[1,2,3],[4,5]] are embedded and charged per token', async (t, database) => {
  const { openai, lastCharge } = await setup(t, database);
  const one = await openai.embeddings.create({ model: 'sim/embedding-small', input: [1, 2, 3], encoding_format: 'float' });
  t.is(one.data.length, 1);
  t.is(one.data[0]!.embedding.length, 1536);
  t.is(one.usage.prompt_tokens, 3);
  t.is(await lastCharge(), priceInUnits([{ quantity: 3, price: '1.80', per: 1_000_000 }]));
  const two = await openai.embeddings.create({ model: 'sim/embedding-small', input: [[1, 2, 3], [4, 5]] });
  t.is(two.data.length, 2);
  t.is(two.usage.prompt_tokens, 5);
  t.deepEqual(two.data[0]!.embedding, one.data[0]!.embedding.map((x) => Math.fround(x)), 'the same tokens, the same vector');
  for (const input of [[-1], [1.5], [[]], []]) {
    const refused = (await t.throwsAsync(openai.embeddings.create({ model: 'sim/embedding-small', input: input as never }))) as any;
    t.is(refused.status, 422, JSON.stringify(input));
  }
});

testOnBackends('embeddings: text-embedding-3-large answers 3072 dimensions and takes dimensions up to 3072, charged at its price', async (t, database) => {
  const { gateway, client, openai, lastCharge } = await setup(t, database);
  const full = await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'hello' });
  t.is(full.model, 'text-embedding-3-large');
  t.is(full.data[0]!.embedding.length, 3072);
  t.is(await lastCharge(), priceInUnits([{ quantity: full.usage.prompt_tokens, price: '11.70', per: 1_000_000 }]));
  const asked = await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'hello', dimensions: 3072, encoding_format: 'float' });
  t.is(asked.data[0]!.embedding.length, 3072);
  t.is((await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'hello', dimensions: 2000 })).data[0]!.embedding.length, 2000);
  const tooMany = await api(gateway, client.key, 'POST', '/v1/embeddings', { model: 'text-embedding-3-large', input: 'hello', dimensions: 3073 });
  t.is(tooMany.status, 422);
  t.deepEqual(tooMany.body.detail[0].loc, ['body', 'dimensions']);
  t.is(tooMany.body.detail[0].msg, 'Input should be less than or equal to 3072');
  const small = (await t.throwsAsync(openai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello', dimensions: 3072 }))) as any;
  t.is(small.status, 422, 'the small model keeps its 1536');
});

testOnBackends('embeddings: a body without model is a 422 naming body.model, and nothing is charged', async (t, database) => {
  const { gateway, client, lastCharge } = await setup(t, database);
  const refused = await api(gateway, client.key, 'POST', '/v1/embeddings', { input: 'hello' });
  t.is(refused.status, 422);
  t.deepEqual(refused.body.detail.map((entry: any) => [entry.loc, entry.type]), [[['body', 'model'], 'missing']]);
  t.is(refused.body.error.param, 'model');
  t.is(await lastCharge(), 0n, 'no charge');
});

testOnBackends('catalog: every type is one of the spec eight; decision models are `text` with capabilities.decisions', async (t, database) => {
  const { openai } = await setup(t, database);
  const models = (await openai.models.list()).data as unknown as { id: string; type: string; capabilities?: Record<string, unknown> }[];
  const specTypes = ['text', 'search', 'image', 'video', 'music', 'tts', 'stt', 'embeddings'];
  for (const model of models) t.true(specTypes.includes(model.type), `${model.id}: ${model.type}`);
  const decision = models.find((model) => model.id === 'sim/decision')!;
  t.is(decision.type, 'text');
  t.is(decision.capabilities!.decisions, true);
  t.false('decisions' in models.find((model) => model.id === 'sim/chat')!.capabilities!);
  // It still answers /v1/decisions, and a chat request names what it is for.
  const refused = (await t.throwsAsync(openai.chat.completions.create({ model: 'sim/decision', messages: [{ role: 'user', content: 'hi' }] }))) as any;
  t.is(refused.status, 422);
  t.regex(refused.message, /decision model/);
});

testOnBackends("a fresh install answers the spec's vendor ids with the simulator's models: embeddings, speech, transcription, music", async (t, database) => {
  const { gateway, client, openai } = await setup(t, database);
  for (const [model, dimensions] of [['text-embedding-3-small', 1536], ['text-embedding-3-large', 3072], ['text-embedding-ada-002', 1536]] as const) {
    const embedded = await openai.embeddings.create({ model, input: 'hello' });
    t.is(embedded.data[0]!.embedding.length, dimensions, model);
  }
  const speech = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.' });
  const audio = Buffer.from(await speech.arrayBuffer());
  t.true(audio.length > 1000);
  const transcript = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(audio, 'hello.mp3', { type: 'audio/mpeg' }) });
  t.is(typeof transcript.text, 'string');
  for (const model of ['suno-v4.5', 'suno-v5', 'suno-instrumental', 'suno-instrumental-pro']) {
    const quote = await api(gateway, client.key, 'POST', '/v1/audio/music/price', { model, mode: 'simple', prompt: 'night roads' });
    t.is(quote.status, 200, model);
    t.is(quote.body.price_rub, '7.2000', model);
  }
});

testOnBackends('audio streaming: transcriptions with stream: true give transcript.text.delta/done; speech with stream_format sse gives speech.audio.delta/done', async (t, database) => {
  const { openai, lastCharge } = await setup(t, database);
  const input = 'Streaming clients hear this sentence.';
  const plainAudio = Buffer.from(await (await openai.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input })).arrayBuffer());
  const plainCharge = await lastCharge();
  const sse = await openai.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input, stream_format: 'sse' });
  t.regex(sse.headers.get('content-type')!, /text\/event-stream/);
  const events = (await sse.text()).split('\n\n').filter(Boolean).map((block) => JSON.parse(block.replace(/^data: /, '')));
  t.true(events.length >= 2);
  t.true(events.slice(0, -1).every((event) => event.type === 'speech.audio.delta'));
  t.is(events.at(-1).type, 'speech.audio.done');
  t.is(typeof events.at(-1).usage.total_tokens, 'number');
  t.deepEqual(Buffer.concat(events.slice(0, -1).map((event) => Buffer.from(event.audio, 'base64'))), plainAudio, 'the same bytes as a plain request');
  t.is(await lastCharge(), plainCharge, 'charged the same');

  const plain = await openai.audio.transcriptions.create({ model: 'sim/stt', file: await toFile(plainAudio, 'speech.mp3', { type: 'audio/mpeg' }) });
  const stream = await openai.audio.transcriptions.create({ model: 'sim/stt', file: await toFile(plainAudio, 'speech.mp3', { type: 'audio/mpeg' }), stream: true });
  let deltas = '';
  let done: { text: string } | undefined;
  for await (const event of stream) {
    if (event.type === 'transcript.text.delta') deltas += event.delta;
    else if (event.type === 'transcript.text.done') done = event;
  }
  t.truthy(plain.text);
  t.is(deltas, plain.text, 'the deltas concatenate to the transcript');
  t.is(done?.text, plain.text);
});

testOnBackends('speech: the simulator produces every format the catalog lists, in its container, of the expected length', async (t, database) => {
  const { openai } = await setup(t, database);
  const input = 'x'.repeat(45); // 3 seconds of simulated speech
  const listed = ((await openai.models.retrieve('sim/tts')) as any).capabilities.formats as string[];
  t.deepEqual(listed, ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
  const expected: Record<string, { type: string; container?: string }> = {
    mp3: { type: 'audio/mpeg', container: 'MPEG' },
    opus: { type: 'audio/opus', container: 'Ogg' },
    aac: { type: 'audio/aac', container: 'ADTS/MPEG-4' },
    flac: { type: 'audio/flac', container: 'FLAC' },
    wav: { type: 'audio/wav', container: 'WAVE' },
    pcm: { type: 'audio/pcm' },
  };
  for (const format of listed) {
    const speech = await openai.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input, response_format: format as never });
    t.is(speech.headers.get('content-type'), expected[format]!.type, format);
    const bytes = new Uint8Array(await speech.arrayBuffer());
    if (format === 'pcm') {
      t.is(bytes.length, 3 * 24_000 * 2, 'pcm: 16-bit 24 kHz mono');
      continue;
    }
    const metadata = await parseBuffer(bytes, { mimeType: expected[format]!.type }, { duration: true });
    t.is(metadata.format.container, expected[format]!.container, format);
    t.is(metadata.format.numberOfChannels, 1, format);
    // Exact where the container states it (FLAC's sample count, Ogg's granule, WAV's data size).
    if (format === 'flac' || format === 'opus' || format === 'wav') t.is(metadata.format.duration, 3, format);
  }
});
