// Issue 34 item 5: images streamed with previews through the official OpenAI SDK. With
// `stream: true` and `partial_images`, a model whose routes stream previews (the built-in `sim`
// provider, and an `openai` kind provider pointed at a started simulator) relays the upstream's
// partial_image events, then the completed event, charged exactly as a plain request; a model
// that cannot is refused with a 422 before any hold; a client leaving after the first preview,
// or an upstream failing after it, charges nothing and leaves no hold.
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';
import { api } from '../helpers/jobs.js';

type TestContext = Parameters<Parameters<typeof testOnBackends>[1]>[0];

/** One low-quality image: 0.99 RUB, 9_900 units. */
const pricing = { per_image: { low: '0.99', medium: '3.78', high: '15.03', default: '3.78' } };
const imageCapabilities = { references: true, max_references: 4, sizes: ['1024x1024', '1024x1536', '1536x1024'], qualities: ['low', 'medium', 'high'], formats: ['png', 'jpeg', 'webp'] };

async function setup(t: TestContext, database: TestDatabase, server?: Record<string, unknown>) {
  const gateway = await startChatGateway(t, database, {
    ...(server ? { server } : {}),
    models: [
      { id: 'sim/image', name: 'sim image', type: 'image', route: { provider: 'sim', model: 'image' }, pricing, capabilities: { ...imageCapabilities, partial_images: true } },
      { id: 'openai/image', name: 'openai image', type: 'image', route: { provider: 'openai', model: 'gpt-image-1' }, pricing, capabilities: { ...imageCapabilities, partial_images: true } },
      { id: 'openai/image-whole', name: 'openai image, no previews', type: 'image', route: { provider: 'openai', model: 'gpt-image-1' }, pricing, capabilities: imageCapabilities },
    ],
  });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const charges = async () => (await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id')).map((row) => -BigInt(row.amount_units));
  const ledgerRows = async () => Number((await database.db('ledger_transactions').where({ account_id: client.accountId }).count({ count: '*' }).first())!.count);
  const balance = () => gateway.services.ledger.balance(client.accountId);
  return { gateway, client, openai, charges, ledgerRows, balance };
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

for (const model of ['sim/image', 'openai/image']) {
  testOnBackends(`${model}: generate with stream and partial_images 2 yields two previews then the completed image, charged one image`, async (t, database) => {
    const { openai, charges, balance } = await setup(t, database);
    const body = { model, prompt: 'a streamed kite', quality: 'low' as const, size: '1024x1536' as const };
    const plain = await openai.images.generate(body);
    const stream = await openai.images.generate({ ...body, stream: true, partial_images: 2 });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    t.deepEqual(
      events.map((event) => [event.type, event.partial_image_index]),
      [
        ['image_generation.partial_image', 0],
        ['image_generation.partial_image', 1],
        ['image_generation.completed', undefined],
      ],
    );
    // The previews are the image drawn smaller: 1/3 and 2/3 of each side.
    t.deepEqual(await imageFacts(events[0].b64_json), { magic: 'png', width: 341, height: 512 });
    t.deepEqual(await imageFacts(events[1].b64_json), { magic: 'png', width: 683, height: 1024 });
    t.deepEqual(await imageFacts(events[2].b64_json), { magic: 'png', width: 1024, height: 1536 });
    t.is(events[2].b64_json, plain.data![0]!.b64_json, 'the same image as a plain request');
    for (const event of events) t.like(event, { output_format: 'png', quality: 'low', size: '1024x1536', background: 'opaque' });
    t.like(events[2].usage, { output_tokens: 408, input_tokens_details: { image_tokens: 0 } }, "the upstream's usage: 272 tokens per low 1024x1024, × 1.5");
    t.deepEqual(await charges(), [9_900n, 9_900n], 'charged one low image, exactly as the plain request');
    t.is((await balance()).heldUnits, 0n);
    await assertLedgerInvariants(t, database.db);
  });
}

testOnBackends('openai/image: edit with stream and partial_images 1 yields a preview then the completed webp image, charged one image', async (t, database) => {
  const { openai, charges, balance } = await setup(t, database);
  const reference = await toFile(await sharp({ create: { width: 64, height: 96, channels: 3, background: '#336699' } }).png().toBuffer(), 'kite.png', { type: 'image/png' });
  const stream = await openai.images.edit({ model: 'openai/image', prompt: 'the kite at dusk', image: reference, quality: 'low', size: '1024x1024', output_format: 'webp', stream: true, partial_images: 1 });
  const events: any[] = [];
  for await (const event of stream) events.push(event);
  t.deepEqual(events.map((event) => event.type), ['image_edit.partial_image', 'image_edit.completed']);
  t.is(events[0].partial_image_index, 0);
  t.deepEqual(await imageFacts(events[0].b64_json), { magic: 'webp', width: 512, height: 512 });
  t.deepEqual(await imageFacts(events[1].b64_json), { magic: 'webp', width: 1024, height: 1024 });
  t.is(events[1].output_format, 'webp');
  t.deepEqual(await charges(), [9_900n]);
  t.is((await balance()).heldUnits, 0n);
});

testOnBackends('a model that cannot stream previews refuses partial_images 2 with a 422 before any hold: balance and ledger unchanged', async (t, database) => {
  const { gateway, client, openai, ledgerRows, balance, charges } = await setup(t, database);
  const rowsBefore = await ledgerRows();
  const error = await t.throwsAsync(openai.images.generate({ model: 'openai/image-whole', prompt: 'a kite', quality: 'low', stream: true, partial_images: 2 }));
  t.true(error instanceof OpenAI.APIError);
  t.is((error as InstanceType<typeof OpenAI.APIError>).status, 422);
  t.regex(error!.message, /openai\/image-whole cannot stream partial images/);
  const refused = await api(gateway, client.key, 'POST', '/v1/images/generations', { model: 'openai/image-whole', prompt: 'a kite', stream: true, partial_images: 1 });
  t.is(refused.status, 422);
  t.deepEqual(refused.body.detail[0].loc, ['body', 'partial_images']);
  t.is(await ledgerRows(), rowsBefore, 'the ledger is untouched');
  t.like(await balance(), { balanceUnits: 10_000_000n, heldUnits: 0n });
  // Without previews the same model streams its completed event, made whole, as before.
  const whole: any[] = [];
  for await (const event of await openai.images.generate({ model: 'openai/image-whole', prompt: 'a kite', quality: 'low', stream: true })) whole.push(event);
  t.deepEqual(whole.map((event) => event.type), ['image_generation.completed']);
  t.deepEqual(await charges(), [9_900n]);
});

testOnBackends('a client leaving after the first preview tears the upstream call down and releases the hold: nothing charged', async (t, database) => {
  // The keep-alive comment is what finds a client gone while the image is drawn (as for chat): short here.
  const { openai, charges, balance } = await setup(t, database, { stream_keepalive: '50ms' });
  const controller = new AbortController();
  // 60 s between the simulator's events: only a gateway that hung up releases the hold in time.
  const stream = await openai.images.generate(
    { model: 'openai/image', prompt: 'a slow kite [[sim:delay=60000]]', quality: 'low', stream: true, partial_images: 2 },
    { signal: controller.signal },
  );
  const seen: string[] = [];
  try {
    for await (const event of stream) {
      seen.push(event.type);
      controller.abort();
    }
  } catch {
    // the SDK may end the iteration or throw on abort; either way the client is gone
  }
  t.deepEqual(seen, ['image_generation.partial_image']);
  await eventually(async () => (await balance()).heldUnits === 0n || undefined, { what: 'the hold released' });
  t.deepEqual(await charges(), []);
  t.is((await balance()).balanceUnits, 10_000_000n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('an upstream failing after the first preview ends the stream with an error event: the SDK throws, nothing is charged', async (t, database) => {
  const { openai, charges, balance } = await setup(t, database);
  const stream = await openai.images.generate({ model: 'sim/image', prompt: 'a failing kite [[sim:fail-mid]]', quality: 'low', stream: true, partial_images: 2 });
  const seen: string[] = [];
  const error = await t.throwsAsync(async () => {
    for await (const event of stream) seen.push(event.type);
  });
  t.deepEqual(seen, ['image_generation.partial_image']);
  t.true(error instanceof OpenAI.APIError);
  t.regex(error!.message, /Simulated failure in the middle of the stream/);
  t.deepEqual(await charges(), []);
  t.is((await balance()).heldUnits, 0n);
  t.is((await balance()).balanceUnits, 10_000_000n);
  // A failure before any event is the plain JSON error, nothing held either.
  const refused = await t.throwsAsync(openai.images.generate({ model: 'sim/image', prompt: 'a refused kite [[sim:status=503]]', quality: 'low', stream: true, partial_images: 2 }));
  t.is((refused as InstanceType<typeof OpenAI.APIError>).status, 502);
  t.deepEqual(await charges(), []);
  t.is((await balance()).heldUnits, 0n);
});
