// Issue 34, images through the official OpenAI SDK over the simulator: nothing accepted,
// ignored and charged. aspect_ratio and resolution give an image of the size they stand for
// (or a 422 for a model that takes none), output_format gives jpeg and webp bytes, and
// stream: true gives OpenAI's image events (item 5, 8).
import { readFileSync } from 'node:fs';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { parse } from 'yaml';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';

type TestContext = Parameters<Parameters<typeof testOnBackends>[1]>[0];

async function setup(t: TestContext, database: TestDatabase, options: { withOpenAiModels?: boolean } = {}) {
  // OpenAI's models enabled (a key set) with their provider on a closed loopback port: what
  // they refuse is refused before anything goes upstream, and nothing could leave the machine.
  const raw = parse(readFileSync(exampleConfigPath, 'utf8'));
  raw.providers.openai.base_url = 'http://127.0.0.1:9/v1';
  const gateway = await startGateway(t, database, options.withOpenAiModels ? { raw, env: { OPENAI_API_KEY: 'sk-never-used' } } : {});
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const charges = async () => (await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id')).map((row) => -BigInt(row.amount_units));
  const heldNow = async () => (await gateway.services.ledger.balance(client.accountId)).heldUnits;
  return { gateway, client, openai, charges, heldNow };
}

/** The format by the magic bytes, and the pixel size as decoded. */
async function imageFacts(b64: string): Promise<{ magic: string; width?: number; height?: number }> {
  const bytes = Buffer.from(b64, 'base64');
  const magic =
    bytes.subarray(0, 8).toString('hex') === '89504e470d0a1a0a'
      ? 'png'
      : bytes.subarray(0, 3).toString('hex') === 'ffd8ff'
        ? 'jpeg'
        : bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP'
          ? 'webp'
          : 'unknown';
  const { width, height } = await sharp(bytes).metadata();
  return { magic, width, height };
}

testOnBackends('images: aspect_ratio "7:3" with resolution "2K" draws 3120x1328, "16:9" alone 1360x768, resolution "2K" alone 2048x2048, each charged as quoted', async (t, database) => {
  const { openai, charges } = await setup(t, database);
  const cases: [Record<string, string>, number, number][] = [
    [{ aspect_ratio: '7:3', resolution: '2K' }, 3120, 1328],
    [{ aspect_ratio: '16:9' }, 1360, 768],
    [{ resolution: '2K' }, 2048, 2048],
  ];
  for (const [options, width, height] of cases) {
    const body = { model: 'sim/image', prompt: 'a wide harbour', quality: 'low', ...options };
    const quote = (await openai.post('/images/price', { body })) as any;
    const images = (await openai.images.generate(body as never)) as any;
    t.deepEqual(await imageFacts(images.data[0].b64_json), { magic: 'png', width, height }, JSON.stringify(options));
    t.is(images.size, `${width}x${height}`, 'the answer names the size drawn');
    t.is(quote.price_rub, '0.9900');
    t.is((await charges()).at(-1), 9_900n, 'charged one low image, as quoted');
  }
});

testOnBackends('images: aspect_ratio and resolution are 422 naming them where the model takes none, a ratio the model does not list, or with a size; nothing is charged', async (t, database) => {
  const { gateway, client, charges, heldNow } = await setup(t, database, { withOpenAiModels: true });
  const refusals: [Record<string, unknown>, string, RegExp][] = [
    [{ model: 'gpt-image-1', aspect_ratio: '7:3' }, 'aspect_ratio', /openai\/gpt-image-1 takes no aspect_ratio/],
    [{ model: 'gpt-image-1', resolution: '2K' }, 'resolution', /openai\/gpt-image-1 takes no resolution/],
    [{ model: 'sim/image', aspect_ratio: '5:1' }, 'aspect_ratio', /Input should be '1:1', .* for sim\/image/],
    [{ model: 'sim/image', resolution: '3K' }, 'resolution', /Input should be '1K', '2K', '4K' for sim\/image/],
    [{ model: 'sim/image', aspect_ratio: '7:3', size: '1024x1024' }, 'aspect_ratio', /give either size or aspect_ratio/],
    [{ model: 'dall-e-3', output_format: 'webp' }, 'output_format', /Input should be 'png' for openai\/dall-e-3/],
  ];
  for (const [options, field, message] of refusals) {
    for (const path of ['/v1/images/generations', '/v1/images/price']) {
      const refused = await api(gateway, client.key, 'POST', path, { prompt: 'x', ...options });
      t.is(refused.status, 422, `${path} ${JSON.stringify(options)}`);
      t.deepEqual(refused.body.detail[0].loc, ['body', field]);
      t.regex(refused.body.detail[0].msg, message);
    }
  }
  t.deepEqual(await charges(), []);
  t.is(await heldNow(), 0n);
});

testOnBackends('images: output_format jpeg and webp answer those bytes (generations and edits), stored as such', async (t, database) => {
  const { openai, client } = await setup(t, database);
  for (const format of ['jpeg', 'webp'] as const) {
    const generated = await openai.images.generate({ model: 'sim/image', prompt: 'a lighthouse', size: '1024x1536', quality: 'low', output_format: format });
    t.deepEqual(await imageFacts(generated.data![0]!.b64_json!), { magic: format, width: 1024, height: 1536 }, format);
    t.is(generated.output_format, format);
    const reference = await toFile(Buffer.from(generated.data![0]!.b64_json!, 'base64'), `ref.${format}`, { type: `image/${format}` });
    const png = await openai.images.generate({ model: 'sim/image', prompt: 'a reference', quality: 'low' });
    const edited = await openai.images.edit({
      model: 'sim/image',
      prompt: 'the same at night',
      image: [await toFile(Buffer.from(png.data![0]!.b64_json!, 'base64'), 'ref.png', { type: 'image/png' }), ...(format === 'jpeg' ? [reference] : [])],
      quality: 'low',
      output_format: format,
    });
    t.deepEqual(await imageFacts(edited.data![0]!.b64_json!), { magic: format, width: 1024, height: 1024 }, `edit ${format}`);
  }
  const files = await database.db('files').where({ account_id: client.accountId });
  const types = files.map((file: { media_type: string }) => file.media_type).sort();
  t.deepEqual(types, ['image/jpeg', 'image/jpeg', 'image/png', 'image/png', 'image/webp', 'image/webp']);
});

testOnBackends('images: stream: true gives image_generation.completed (generations), and with partial_images each image\'s previews before its image_edit.completed (edits), with the bytes of a plain request, charged the same', async (t, database) => {
  const { openai, charges } = await setup(t, database);
  const body = { model: 'sim/image', prompt: 'a streamed kite', quality: 'low' as const, size: '1024x1536' as const };
  const plain = await openai.images.generate(body);
  // No previews asked: the completed event alone (test/e2e/image-stream.test.ts has the previews).
  const stream = await openai.images.generate({ ...body, stream: true });
  const events: any[] = [];
  for await (const event of stream) events.push(event);
  t.deepEqual(events.map((event) => event.type), ['image_generation.completed']);
  t.is(events[0].b64_json, plain.data![0]!.b64_json, 'the same image as a plain request');
  t.like(events[0], { output_format: 'png', quality: 'low', size: '1024x1536', background: 'auto' });
  t.is(typeof events[0].usage.total_tokens, 'number');
  t.deepEqual(await charges(), [9_900n, 9_900n], 'charged the same');

  const reference = await toFile(Buffer.from(plain.data![0]!.b64_json!, 'base64'), 'kite.png', { type: 'image/png' });
  const edits = await openai.images.edit({ model: 'sim/image', prompt: 'the kite at dusk', image: reference, quality: 'low', n: 2, output_format: 'webp', stream: true, partial_images: 1 });
  const edited: any[] = [];
  for await (const event of edits) edited.push(event);
  // The previews as they come; the completed images once all are kept and charged (all or nothing).
  t.deepEqual(edited.map((event) => event.type), ['image_edit.partial_image', 'image_edit.partial_image', 'image_edit.completed', 'image_edit.completed'], 'each image\'s preview, then the images');
  for (const event of edited.filter((event) => event.type === 'image_edit.completed')) t.deepEqual(await imageFacts(event.b64_json), { magic: 'webp', width: 1024, height: 1536 });
  for (const event of edited.filter((event) => event.type === 'image_edit.partial_image')) t.deepEqual(await imageFacts(event.b64_json), { magic: 'webp', width: 512, height: 768 });
  t.deepEqual(await charges(), [9_900n, 9_900n, 19_800n]);
});

testOnBackends('images: a streamed request refused before its images is a plain JSON 422, nothing held or charged; partial_images above 3 is a 422', async (t, database) => {
  const { gateway, client, charges, heldNow } = await setup(t, database);
  const unknownSize = await api(gateway, client.key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'x', size: '256x256', stream: true });
  t.is(unknownSize.status, 422);
  t.regex(unknownSize.headers.get('content-type')!, /application\/json/);
  t.deepEqual(unknownSize.body.detail[0].loc, ['body', 'size']);
  const partials = await api(gateway, client.key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'x', stream: true, partial_images: 4 });
  t.is(partials.status, 422);
  t.deepEqual(partials.body.detail[0].loc, ['body', 'partial_images']);
  t.deepEqual(await charges(), []);
  t.is(await heldNow(), 0n);
});
