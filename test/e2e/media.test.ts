// Synchronous media through the official OpenAI SDK over the simulator: images (with their
// price quote, files and history), speech, embeddings, decisions; each charged exactly,
// each refused without its scope.
import OpenAI, { toFile } from 'openai';
import { priceInUnits } from '../../src/billing/pricing.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function setup(t: Parameters<Parameters<typeof testOnBackends>[1]>[0], database: Parameters<Parameters<typeof testOnBackends>[1]>[1], scopes?: string[]) {
  const gateway = await startGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n, scopes });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const lastCharge = async () => {
    const row = await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'desc').first();
    return row ? -BigInt(row.amount_units) : 0n;
  };
  return { gateway, client, openai, lastCharge };
}

testOnBackends('images: n=2 gives two decodable PNGs, two images charged exactly as quoted, stored and recorded in the history', async (t, database) => {
  const { gateway, client, openai, lastCharge } = await setup(t, database);
  const body = { model: 'sim/image', prompt: 'a red lighthouse', n: 2, size: '1024x1536', quality: 'high' };
  const quote = await openai.post('/images/price', { body }) as any;
  t.is(quote.price_rub, '30.0600');
  t.is(await lastCharge(), 0n, 'a quote charges nothing');
  const images = await openai.images.generate(body as any);
  t.is(images.data!.length, 2);
  for (const image of images.data!) t.deepEqual(pngSize(Buffer.from(image.b64_json!, 'base64')), { width: 1024, height: 1536 });
  t.not(images.data![0]!.b64_json, images.data![1]!.b64_json);
  t.is(await lastCharge(), priceInUnits([{ quantity: 2, price: '15.03', per: 1 }]));
  t.is(await lastCharge(), 300_600n, 'the quote was exactly the charge');
  const history = await database.db('generations').where({ account_id: client.accountId, type: 'image' });
  t.is(history.length, 2);
  t.is(history[0].prompt, 'a red lighthouse');
  t.is(BigInt(history[0].charged_units), 150_300n);
  const files = await database.db('files').whereIn('id', history.flatMap((h: any) => JSON.parse(h.file_ids)));
  t.is(files.length, 2);
  t.deepEqual(files.map((f: any) => f.media_type), ['image/png', 'image/png']);
  const sizes = (list: number[]) => list.sort((a, b) => a - b);
  t.deepEqual(sizes(files.map((f: any) => Number(f.bytes))), sizes(images.data!.map((image) => Buffer.from(image.b64_json!, 'base64').length)), 'each stored file is the image answered');
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
});

testOnBackends('images: quotes equal charges across options; bad options are 422 naming the allowed values', async (t, database) => {
  const { openai, lastCharge } = await setup(t, database);
  const cases = [
    { n: 1, quality: 'low', size: '1024x1024' },
    { n: 3, quality: 'medium', size: '1536x1024' },
    { n: 4 },
  ];
  for (const options of cases) {
    const body = { model: 'sim/image', prompt: 'a cat', ...options };
    const quote = (await openai.post('/images/price', { body })) as any;
    await openai.images.generate(body as any);
    t.is(await lastCharge(), BigInt(quote.price_rub.replace('.', '')), `quote ${quote.price_rub} RUB = charge for ${JSON.stringify(options)}`);
  }
  const url = (await t.throwsAsync(openai.images.generate({ model: 'sim/image', prompt: 'x', response_format: 'url' }))) as any;
  t.is(url.status, 422);
  t.regex(url.message, /URLs are not supported/);
  const size = (await t.throwsAsync(openai.images.generate({ model: 'sim/image', prompt: 'x', size: '256x256' }))) as any;
  t.is(size.status, 422);
  t.regex(size.message, /'1024x1024', '1024x1536', '1536x1024'/);
  t.is(((await t.throwsAsync(openai.images.generate({ model: 'sim/image', prompt: 'x', n: 5 }))) as any).status, 422);
});

testOnBackends('speech returns MP3 bytes charged per character; embeddings honour the SDK default base64 and float', async (t, database) => {
  const { openai, lastCharge } = await setup(t, database);
  const input = 'Hello from the gateway, spoken out loud.';
  const speech = await openai.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input });
  t.regex(speech.headers.get('content-type')!, /audio\/mpeg/);
  const audio = Buffer.from(await speech.arrayBuffer());
  t.true(audio.length > 1000);
  const start = audio.subarray(0, 3).toString('latin1') === 'ID3' ? 10 + ((audio[6]! << 21) | (audio[7]! << 14) | (audio[8]! << 7) | audio[9]!) : 0;
  t.is(audio[start], 0xff, 'MP3 frame sync');
  t.is(audio[start + 1]! & 0xe0, 0xe0);
  t.is(await lastCharge(), priceInUnits([{ quantity: input.length, price: '1350.00', per: 1_000_000 }]));

  const base64 = await openai.embeddings.create({ model: 'sim/embedding-small', input: ['first text', 'second text'] });
  t.is(base64.data.length, 2);
  t.is(base64.data[0]!.embedding.length, 1536);
  t.true(base64.data[0]!.embedding.every((x) => Number.isFinite(x)));
  const floats = await openai.embeddings.create({ model: 'sim/embedding-small', input: 'first text', encoding_format: 'float' });
  t.is(floats.data[0]!.embedding.length, 1536);
  t.deepEqual(floats.data[0]!.embedding.map((x) => Math.fround(x)), base64.data[0]!.embedding, 'the same vector either way');
  const pricing = (await openai.models.retrieve('sim/embedding-small')) as any;
  t.is(await lastCharge(), priceInUnits([{ quantity: floats.usage.prompt_tokens, price: pricing.pricing.per_1m_input_tokens.rub, per: 1_000_000 }]));
});

testOnBackends('decisions: typed answers whose probabilities sum to 1, charged per input token; invalid questions are 422 before anything is held', async (t, database) => {
  const { gateway, client, openai, lastCharge } = await setup(t, database);
  const decision = (await openai.post('/decisions', {
    body: {
      model: 'sim/decision',
      state: 'Customer: I was charged twice and want a refund today.',
      questions: {
        is_refund: { type: 'noul', instructions: 'Is the customer asking for a refund?' },
        team: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'charges', technical: 'bugs', other: null } },
        urgency: { type: 'score', instructions: 'How urgent?', criteria: ['can wait', 'this week', 'today'] },
      },
    },
  })) as any;
  t.is(decision.answers.is_refund.type, 'noul');
  const sum = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0);
  t.true(Math.abs(sum(decision.answers.team.probabilities) - 1) < 1e-9);
  t.true(Math.abs(sum(decision.answers.urgency.probabilities) - 1) < 1e-9);
  t.is(await lastCharge(), priceInUnits([{ quantity: decision.usage.input_tokens, price: '27.00', per: 1_000_000 }]));
  const refused = (await openai.post('/decisions', {
    body: { model: 'sim/decision', state: 's', questions: { a: { type: 'noul', instructions: 'fine' }, b: { type: 'noul', instructions: 'no [[sim:refuse]]' } } },
  })) as any;
  t.is(refused.answers.a.type, 'noul');
  t.is(refused.answers.b.type, 'refusal', 'a refusal is passed through per question');

  const before = await gateway.services.ledger.balance(client.accountId);
  const invalid = [
    { q: { type: 'maybe', instructions: 'x' }, loc: 'type' },
    { q: { type: 'noul' }, loc: 'instructions' },
    { q: { type: 'choice', instructions: 'x', criteria: { only: null } }, loc: 'criteria' },
    { q: { type: 'score', instructions: 'x', criteria: Array.from({ length: 11 }, (_, i) => `level ${i}`) }, loc: 'criteria' },
  ];
  for (const { q, loc } of invalid) {
    const response = await fetch(`${gateway.url}/v1/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/decision', state: 's', questions: { q } }),
    });
    t.is(response.status, 422, JSON.stringify(q));
    const body = (await response.json()) as any;
    t.true(body.detail.some((d: any) => d.loc.includes(loc)), `${JSON.stringify(body.detail)} names ${loc}`);
  }
  t.deepEqual(await gateway.services.ledger.balance(client.accountId), before, 'nothing held or charged');
});

testOnBackends('each media route is refused with 403 naming its scope', async (t, database) => {
  const { openai } = await setup(t, database, ['search']);
  const cases: [string, () => Promise<unknown>][] = [
    ['images', () => openai.images.generate({ model: 'sim/image', prompt: 'x' })],
    ['images', () => openai.post('/images/price', { body: { model: 'sim/image', prompt: 'x' } })],
    ['audio', () => openai.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input: 'x' })],
    ['embeddings', () => openai.embeddings.create({ model: 'sim/embedding-small', input: 'x' })],
    ['chat', () => openai.post('/decisions', { body: { model: 'sim/decision', state: 's', questions: {} } })],
  ];
  for (const [scope, call] of cases) {
    const error = (await t.throwsAsync(call())) as any;
    t.is(error.status, 403);
    t.regex(error.message, new RegExp(`"${scope}" scope`));
  }
});

testOnBackends('image edits: two reference files through the SDK, charged per image; a corrupt image is a 422', async (t, database) => {
  const { client, openai, lastCharge } = await setup(t, database);
  const generated = await openai.images.generate({ model: 'sim/image', prompt: 'a boat', n: 2, size: '1024x1024', quality: 'low' });
  const references = await Promise.all(generated.data!.map((image, i) => toFile(Buffer.from(image.b64_json!, 'base64'), `ref-${i}.png`, { type: 'image/png' })));
  const edited = await openai.images.edit({ model: 'sim/image', prompt: 'the same boat at night', image: references, quality: 'low', n: 1 });
  t.is(edited.data!.length, 1);
  t.deepEqual(pngSize(Buffer.from(edited.data![0]!.b64_json!, 'base64')), { width: 1024, height: 1024 });
  t.is(await lastCharge(), 9_900n, 'one low-quality image at 0.99 RUB');
  const history = await database.db('generations').where({ account_id: client.accountId, type: 'image' });
  t.is(history.length, 3);
  const corrupt = (await t.throwsAsync(openai.images.edit({ model: 'sim/image', prompt: 'x', image: await toFile(Buffer.from('definitely not a png'), 'x.png', { type: 'image/png' }) }))) as any;
  t.is(corrupt.status, 422);
  t.regex(corrupt.message, /not a PNG, JPEG or WebP image/);
});

testOnBackends('image upscale: scale 2 and 4 within 4K, charged per image, recorded; a corrupt image is a 422', async (t, database) => {
  const { gateway, client, lastCharge } = await setup(t, database);
  const sharp = (await import('sharp')).default;
  const upscale = async (image: Buffer, scale?: number) => {
    const form = new FormData();
    form.append('image', new Blob([image], { type: 'image/png' }), 'in.png');
    if (scale) form.append('scale', String(scale));
    return fetch(`${gateway.url}/v1/images/upscale`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: form });
  };
  const small = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#336699' } }).png().toBuffer();
  const twice = (await (await upscale(small, 2)).json()) as any;
  t.deepEqual(pngSize(Buffer.from(twice.data[0].b64_json, 'base64')), { width: 240, height: 160 });
  t.is(await lastCharge(), 36_000n, 'sim/image-upscale: 3.60 RUB per image');
  const large = await sharp({ create: { width: 1920, height: 1080, channels: 3, background: '#aa3300' } }).png().toBuffer();
  const fourK = (await (await upscale(large)).json()) as any;
  t.is(fourK.size, '3840x2160');
  t.deepEqual(pngSize(Buffer.from(fourK.data[0].b64_json, 'base64')), { width: 3840, height: 2160 });
  t.is((await database.db('generations').where({ account_id: client.accountId, model: 'sim/image-upscale' })).length, 2);
  const corrupt = await upscale(Buffer.from('not an image'));
  t.is(corrupt.status, 422);
  t.is((await upscale(small, 3)).status, 422);
});

testOnBackends('images.generate with model "dall-e-3" works on a fresh install (served by sim/image)', async (t, database) => {
  const { openai, lastCharge } = await setup(t, database);
  const images = await openai.images.generate({ model: 'dall-e-3', prompt: 'a kite', size: '1024x1024' });
  t.deepEqual(pngSize(Buffer.from(images.data![0]!.b64_json!, 'base64')), { width: 1024, height: 1024 });
  t.is(await lastCharge(), 37_800n, 'priced as sim/image (default 3.78 RUB)');
});
