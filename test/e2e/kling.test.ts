// Kling video through the gateway, as an API client sees it: the official openai SDK creates
// videos (from text, and from a start image) on Kling models whose provider points at the
// simulated Kling (/kling); the job completes, the MP4 downloads, the charge is exactly the
// catalog's per-second price × the seconds, and Kling made exactly one task per job — even
// when the create's answer was lost (the job is found by its external_task_id, not re-sent) or
// the create timed out before Kling made the task (looked up, re-sent under the same name).
// A failed task, a policy refusal in a 200 envelope and a wrong secret key release the hold.
import type { ExecutionContext } from 'ava';
import OpenAI, { toFile } from 'openai';
import { readMp4Info } from '../../src/media-files/mp4.js';
import { patternPng } from '../../src/sim/media/png.js';
import { startSimulator } from '../../src/sim/server.js';
import { registerKlingSecret } from '../../src/sim/vendors/kling/auth.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { assertJobMoneySettled, charges, fastJobsConfig } from '../helpers/jobs.js';

const accessKey = `kling-e2e-${process.pid}`;
const secretKey = 'kling-e2e-secret';
registerKlingSecret(accessKey, secretKey);

/** 0.0001 RUB units per RUB. */
const unitsPerRub = 10_000n;

/** The catalog's per-second price in units ("5.04" → 50_400n), read from the gateway's own catalog. */
function perSecondUnits(gateway: TestGateway, model: string): bigint {
  const price = gateway.services.catalog.models.find((candidate) => candidate.id === model)!.config.pricing.per_second as string;
  const [whole, fraction = ''] = price.split('.');
  return BigInt(whole!) * unitsPerRub + BigInt(fraction.padEnd(4, '0'));
}

async function startKling(t: ExecutionContext, database: TestDatabase, key = `${accessKey}:${secretKey}`, timeout = '10s'): Promise<{ gateway: TestGateway; simUrl: string }> {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const raw = fastJobsConfig();
  raw.providers = { ...raw.providers, kling: { kind: 'kling', base_url: `${simulator.url}/kling`, api_key_env: 'KLING_API_KEY', timeout } };
  const gateway = await startGateway(t, database, { raw, env: { KLING_API_KEY: key }, jobRunner: true });
  return { gateway, simUrl: simulator.url };
}

async function tasksByName(simUrl: string): Promise<Record<string, number>> {
  return ((await (await fetch(`${simUrl}/kling/__sim/stats`)).json()) as { data: { by_external_task_id: Record<string, number> } }).data.by_external_task_id;
}

async function finished(openai: OpenAI, id: string): Promise<OpenAI.Videos.Video> {
  return eventually(
    async () => {
      const video = await openai.videos.retrieve(id);
      return video.status === 'completed' || video.status === 'failed' ? video : undefined;
    },
    { what: `video ${id} ended`, intervalMs: 50 },
  );
}

async function submitKeyOf(database: TestDatabase, id: string): Promise<string> {
  return (await database.db('jobs').where({ id }).first()).submit_key;
}

testOnBackends('kling: text to video and image to video complete, download the requested MP4, are charged price × seconds exactly, one Kling task each', async (t, database) => {
  const { gateway, simUrl } = await startKling(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });

  const text = await openai.videos.create({ model: 'kling/kling-v2-1', prompt: 'a red fox trotting through snow', seconds: '5' as never, size: '720x1280' as never });
  t.is(text.status, 'queued');
  const textDone = await finished(openai, text.id);
  t.is(textDone.status, 'completed', JSON.stringify(textDone));
  const textMp4 = readMp4Info(new Uint8Array(await (await openai.videos.downloadContent(text.id)).arrayBuffer()));
  t.like(textMp4, { durationSeconds: 5, width: 720, height: 1280 }, 'std mode: 720p, portrait as asked');

  const start = patternPng(640, 360, 'kling-start');
  const image = await openai.videos.create({
    model: 'kling/kling-v2-1-pro',
    prompt: 'the scene slowly comes alive',
    seconds: '10' as never,
    size: '1920x1080' as never,
    input_reference: await toFile(start, 'start.png', { type: 'image/png' }),
  });
  const imageDone = await finished(openai, image.id);
  t.is(imageDone.status, 'completed', JSON.stringify(imageDone));
  const imageMp4 = readMp4Info(new Uint8Array(await (await openai.videos.downloadContent(image.id)).arrayBuffer()));
  t.like(imageMp4, { durationSeconds: 10, width: 1920, height: 1080 }, 'pro mode: 1080p');

  const textPrice = 5n * perSecondUnits(gateway, 'kling/kling-v2-1');
  const imagePrice = 10n * perSecondUnits(gateway, 'kling/kling-v2-1-pro');
  t.is(textPrice, 252_000n, '5 s × 5.04 RUB');
  t.is(imagePrice, 882_000n, '10 s × 8.82 RUB');
  t.deepEqual(await charges(database, client.accountId), [textPrice, imagePrice]);
  const rows = await database.db('jobs').whereIn('id', [text.id, image.id]).orderBy('created_at');
  t.deepEqual(rows.map((row: any) => [row.status, row.upstream_id.split(':')[0], Number(row.submits)]), [['completed', 'text2video', 1], ['completed', 'image2video', 1]]);
  const byName = await tasksByName(simUrl);
  t.is(byName[await submitKeyOf(database, text.id)], 1, 'one Kling task for the text job');
  t.is(byName[await submitKeyOf(database, image.id)], 1, 'one Kling task for the image job');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('kling: a create whose answer is lost is found by its external_task_id, not sent again: one task, charged once', async (t, database) => {
  const { gateway, simUrl } = await startKling(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const video = await openai.videos.create({ model: 'kling/kling-v2-master', prompt: 'a lighthouse in a storm [[sim:kling-drop]]', seconds: '5' as never });
  const done = await finished(openai, video.id);
  t.is(done.status, 'completed', JSON.stringify(done));
  const row = await database.db('jobs').where({ id: video.id }).first();
  t.is(row.submit_state, 'submitted');
  t.is(Number(row.submits), 1, 'sent once: the second look was a query, not a create');
  t.is((await tasksByName(simUrl))[row.submit_key], 1, 'exactly one Kling task');
  t.deepEqual(await charges(database, client.accountId), [5n * perSecondUnits(gateway, 'kling/kling-v2-master')]);
  t.deepEqual(await charges(database, client.accountId), [1_260_000n], '5 s × 25.20 RUB');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('kling: a create that timed out is looked up (none), sent again under the same name; the late first create makes the task, the re-send is refused the name and the task found: one task', async (t, database) => {
  // [[sim:kling-late-first]]: Kling holds the first create, making nothing, until the gateway
  // gives up on it (the provider waits 0.5 s); the look-up finds no task, so the job is sent
  // again; the first create "arrives" just before that one: its task is made and the re-send
  // refused the name (1201), after which the job looks again and finds the task.
  const { gateway, simUrl } = await startKling(t, database, undefined, '500ms');
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const video = await openai.videos.create({ model: 'kling/kling-v2-1', prompt: 'a slow river [[sim:kling-late-first]]', seconds: '10' as never, size: '1280x720' as never });
  const done = await finished(openai, video.id);
  t.is(done.status, 'completed', JSON.stringify(done));
  const row = await database.db('jobs').where({ id: video.id }).first();
  // At least the create that timed out and the re-send; on a loaded machine the re-send too can
  // outlast the 0.5 s timeout and be sent once more. What must hold is one task, charged once.
  t.true(Number(row.submits) >= 2, `the create that timed out, then the re-send (${row.submits} sends)`);
  t.is((await tasksByName(simUrl))[row.submit_key], 1, 'exactly one Kling task');
  t.deepEqual(await charges(database, client.accountId), [10n * perSecondUnits(gateway, 'kling/kling-v2-1')]);
  t.deepEqual(await charges(database, client.accountId), [504_000n], '10 s × 5.04 RUB');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('kling: a lost create answer whose look-up by name is refused for good fails the job (submit_uncertain) and releases the hold: never sent again', async (t, database) => {
  const { gateway, simUrl } = await startKling(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const video = await openai.videos.create({ model: 'kling/kling-v2-1', prompt: 'a hidden task [[sim:kling-drop]] [[sim:kling-name-query-refused]]', seconds: '5' as never });
  const done = await finished(openai, video.id);
  t.is(done.status, 'failed');
  t.is(done.error?.code, 'submit_uncertain');
  t.regex(done.error!.message, /looking it up by its key failed \(Kling answered code 1103/);
  const row = await database.db('jobs').where({ id: video.id }).first();
  t.is(Number(row.submits), 1, 'not sent again');
  t.is((await tasksByName(simUrl))[row.submit_key], 1, 'the one task Kling made (the operator pays it; the client does not)');
  t.deepEqual(await charges(database, client.accountId), []);
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('kling: a failed task, a content-policy code in a 200 envelope and a wrong secret key each fail the job and release its hold', async (t, database) => {
  const { gateway } = await startKling(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const failedTask = await finished(openai, (await openai.videos.create({ model: 'kling/kling-v2-1', prompt: 'doomed [[sim:job-fail]]', seconds: '5' as never })).id);
  t.is(failedTask.status, 'failed');
  t.like(failedTask.error, { code: 'kling_task_failed', message: 'The simulated task failed ([[sim:job-fail]]).' });
  const refused = await finished(openai, (await openai.videos.create({ model: 'kling/kling-v2-1', prompt: 'risky [[sim:kling-code=1301]]', seconds: '5' as never })).id);
  t.is(refused.status, 'failed');
  t.is(refused.error?.code, 'upstream_rejected');
  t.regex(refused.error!.message, /Kling answered code 1301/);
  t.deepEqual(await charges(database, client.accountId), []);
  const balance = await gateway.services.ledger.balance(client.accountId);
  t.like(balance, { balanceUnits: 10_000_000n, heldUnits: 0n }, 'balance unchanged, nothing held');
  await assertJobMoneySettled(t, database, client.accountId);

  // Stopped first: on the same database its runner (whose provider has the right secret) could claim the next job.
  await gateway.stop();
  const wrong = await startKling(t, database, `${accessKey}:not-the-secret`);
  const other = await wrong.gateway.newClient({ balanceUnits: 10_000_000n });
  const otherOpenai = new OpenAI({ baseURL: `${wrong.gateway.url}/v1`, apiKey: other.key, maxRetries: 0 });
  const unauthorized = await finished(otherOpenai, (await otherOpenai.videos.create({ model: 'kling/kling-v2-1', prompt: 'a quiet pond', seconds: '5' as never })).id);
  t.is(unauthorized.status, 'failed');
  t.regex(unauthorized.error!.message, /Kling answered code 1000/);
  t.deepEqual(await charges(database, other.accountId), []);
  await assertJobMoneySettled(t, database, other.accountId);
});
