// FLUX (provider kind `bfl`) through the official OpenAI SDK, routed to the simulated BFL API
// (prefix /bfl): each image is submitted, polled (Pending, then Ready) and its signed sample
// fetched, and charged exactly the catalog's per-image price; an expired sample, a moderated
// prompt and a 402 from BFL are failed calls with the hold released and the balance unchanged.
import type { ExecutionContext } from 'ava';
import OpenAI, { toFile } from 'openai';
import { priceInUnits } from '../../src/billing/pricing.js';
import { readImageSize } from '../../src/sim/media/png.js';
import { startSimulator } from '../../src/sim/server.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const proPrice = '3.60'; // $0.04
const kontextPrice = '3.60'; // $0.04

/** The simulator's own counts of what its FLUX endpoints served. */
async function bflSimulatorStats(simulatorUrl: string) {
  return (await (await fetch(`${simulatorUrl}/bfl/__sim/stats`)).json()) as Record<string, number>;
}

async function setup(t: ExecutionContext, database: TestDatabase) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const raw = {
    providers: { sim: { kind: 'sim' }, flux: { kind: 'bfl', base_url: `${simulator.url}/bfl`, api_key_env: 'TEST_BFL_KEY', safety_tolerance: 2 } },
    models: [
      {
        id: 'bfl/flux-pro-1.1',
        name: 'FLUX1.1 [pro]',
        type: 'image',
        route: { provider: 'flux', model: 'flux-pro-1.1' },
        pricing: { per_image: proPrice },
        capabilities: { references: false, sizes: ['1024x1024', '1024x768', '768x1024', '1440x1440'], formats: ['png', 'jpeg', 'webp'] },
      },
      {
        id: 'bfl/flux-kontext-pro',
        name: 'FLUX.1 Kontext [pro]',
        type: 'image',
        route: { provider: 'flux', model: 'flux-kontext-pro' },
        pricing: { per_image: kontextPrice },
        capabilities: { references: true, max_references: 4, sizes: ['1024x1024'], aspect_ratios: ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21'], formats: ['png', 'jpeg', 'webp'] },
      },
    ],
  };
  const gateway = await startGateway(t, database, { raw, env: { TEST_BFL_KEY: 'bfl-test-key' } });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const charges = () => database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'desc');
  const lastCharge = async () => {
    const row = await charges().first();
    return row ? -BigInt(row.amount_units) : 0n;
  };
  const balance = () => gateway.services.ledger.balance(client.accountId);
  return { simulator, gateway, client, openai, lastCharge, charges, balance };
}

testOnBackends('FLUX generation: submitted, polled through Pending to Ready, the sample fetched; the size and format asked, charged the catalog price', async (t, database) => {
  const { simulator, openai, lastCharge, balance } = await setup(t, database);
  const before = await balance();
  const png = await openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'a red lighthouse at dusk', size: '1024x768' });
  const bytes = Buffer.from(png.data![0]!.b64_json!, 'base64');
  t.deepEqual(readImageSize(bytes), { format: 'png', mediaType: 'image/png', width: 1024, height: 768 });
  t.is(await lastCharge(), priceInUnits([{ quantity: 1, price: proPrice, per: 1 }]));
  t.is(await lastCharge(), 36_000n, '3.60 RUB');
  t.deepEqual((await bflSimulatorStats(simulator.url)), { submits: 1, pendingPolls: 1, readyPolls: 1, failedPolls: 0, samples: 1, expiredSamples: 0 }, 'one Pending poll, one Ready poll, one sample fetched');

  const jpeg = await openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'a red lighthouse at dusk', size: '768x1024', output_format: 'jpeg' });
  t.deepEqual(readImageSize(Buffer.from(jpeg.data![0]!.b64_json!, 'base64')), { format: 'jpeg', mediaType: 'image/jpeg', width: 768, height: 1024 });
  const webp = await openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'a lighthouse', output_format: 'webp' });
  t.is(Buffer.from(webp.data![0]!.b64_json!, 'base64').subarray(8, 12).toString('latin1'), 'WEBP', 'png from FLUX, converted to the webp asked');
  const after = await balance();
  t.is(before.balanceUnits - after.balanceUnits, 3n * 36_000n);
  t.is(after.heldUnits, 0n);
});

testOnBackends('FLUX Kontext: aspect_ratio honoured, edits carry the reference image; what the model cannot do is 422 before any hold', async (t, database) => {
  const { simulator, openai, lastCharge, balance } = await setup(t, database);
  const wide = await openai.images.generate({ model: 'bfl/flux-kontext-pro', prompt: 'a wide valley', aspect_ratio: '16:9' } as any);
  t.deepEqual(readImageSize(Buffer.from(wide.data![0]!.b64_json!, 'base64')), { format: 'png', mediaType: 'image/png', width: 1360, height: 768 });
  t.is(await lastCharge(), 36_000n);

  const reference = Buffer.from((await openai.images.generate({ model: 'bfl/flux-kontext-pro', prompt: 'a cat' })).data![0]!.b64_json!, 'base64');
  const edit = await openai.images.edit({ model: 'bfl/flux-kontext-pro', prompt: 'the cat wearing a hat', image: await toFile(reference, 'cat.png', { type: 'image/png' }) });
  const edited = Buffer.from(edit.data![0]!.b64_json!, 'base64');
  t.deepEqual(readImageSize(edited), { format: 'png', mediaType: 'image/png', width: 1024, height: 1024 }, 'the reference is square');
  t.notDeepEqual(edited, reference);
  t.is(await lastCharge(), priceInUnits([{ quantity: 1, price: kontextPrice, per: 1 }]));
  t.is((await bflSimulatorStats(simulator.url)).submits, 3);

  const submitsBefore = (await bflSimulatorStats(simulator.url)).submits;
  const before = await balance();
  const ratio = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x', aspect_ratio: '16:9' } as any))) as any;
  t.is(ratio.status, 422);
  t.regex(ratio.message, /takes no aspect_ratio/);
  const size = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x', size: '1536x1024' }))) as any;
  t.is(size.status, 422);
  const noReferences = (await t.throwsAsync(openai.images.edit({ model: 'bfl/flux-pro-1.1', prompt: 'x', image: await toFile(reference, 'cat.png', { type: 'image/png' }) }))) as any;
  t.is(noReferences.status, 422);
  const two = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x', n: 2 }))) as any;
  t.is(two.status, 400);
  t.regex(two.message, /one image per request/);
  t.is((await bflSimulatorStats(simulator.url)).submits, submitsBefore, 'nothing refused reached FLUX');
  t.deepEqual(await balance(), before);
});

testOnBackends('FLUX: an expired sample, a moderated prompt, a failed generation and 402 are failed calls with the hold released and nothing charged', async (t, database) => {
  const { simulator, openai, charges, balance } = await setup(t, database);
  const before = await balance();
  const expired = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'a slow download [[sim:sample-ttl=0]]' }))) as any;
  t.is(expired.status, 502);
  t.regex(expired.message, /signed URL had expired/);
  t.like((await bflSimulatorStats(simulator.url)), { submits: 1, pendingPolls: 1, readyPolls: 1, samples: 0, expiredSamples: 1 }, 'polled to Ready; the sample was refused as expired');

  const moderated = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'something flagged [[sim:moderated]]' }))) as any;
  t.is(moderated.status, 400);
  t.regex(moderated.message, /moderation refused the prompt or reference image \(Request Moderated\)/);
  const contentModerated = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x [[sim:content-moderated]]' }))) as any;
  t.is(contentModerated.status, 400);
  t.regex(contentModerated.message, /the generated image \(Content Moderated\)/);
  const failed = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x [[sim:generation-error]]' }))) as any;
  t.is(failed.status, 502);
  t.regex(failed.message, /FLUX failed to generate the image \(Error\)/);
  const credits = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x [[sim:status=402]]' }))) as any;
  t.is(credits.status, 502);
  t.regex(credits.message, /insufficient credits/);
  const limited = (await t.throwsAsync(openai.images.generate({ model: 'bfl/flux-pro-1.1', prompt: 'x [[sim:status=429]] [[sim:retry-after=7]]' }))) as any;
  t.is(limited.status, 502);
  t.is(limited.headers.get('retry-after'), '7', 'BFL\'s Retry-After passed on');

  t.deepEqual(await charges(), [], 'nothing charged');
  t.deepEqual(await balance(), before, 'balance unchanged, nothing held');
});
