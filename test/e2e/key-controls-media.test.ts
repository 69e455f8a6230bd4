// A key's model allowlist on the media and job routes (the chat dialects: key-controls.test.ts):
// another model is 403 model_not_allowed before anything is held or sent upstream; an allowed
// one is served and charged as usual. A job accepted before its key's models were narrowed still
// runs: the allowlist is checked when a job is submitted, as a disabled account's jobs finish.
import { createJobRunner } from '../../src/pipeline/job-runner.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway } from '../helpers/gateway.js';
import { api, assertJobMoneySettled, charges, fastJobsConfig, startJobGateway } from '../helpers/jobs.js';

async function moneyOf(database: TestDatabase, accountId: string) {
  const account = (await database.db('accounts').where({ id: accountId }).first()) as { balance_units: unknown; held_units: unknown };
  const holds = Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n);
  return { balance: BigInt(account.balance_units as string), held: BigInt(account.held_units as string), holds };
}

testOnBackends('a model allowlist on images, speech and video jobs: other models are 403 model_not_allowed with nothing held; allowed ones are served', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const { key } = await gateway.services.apiKeys.create({ accountId, models: ['sim/image'] });
  const before = await moneyOf(database, accountId);
  const refused = [
    ['/v1/images/generations', { model: 'sim/image-upscale', prompt: 'a fox' }],
    ['/v1/audio/speech', { model: 'sim/tts', input: 'hello', voice: 'alloy' }],
    ['/v1/videos', { model: 'sim/video', prompt: 'a calm sea', seconds: 4 }],
  ] as const;
  for (const [path, body] of refused) {
    const answer = await api(gateway, key, 'POST', path, body);
    t.is(answer.status, 403, path);
    t.is(answer.body.error.code, 'model_not_allowed', path);
    t.is(answer.body.error.message, `This API key may not use the model '${body.model}'. Its models: sim/image.`, path);
  }
  t.deepEqual(await moneyOf(database, accountId), before, 'nothing held or charged');
  t.is(await database.db('jobs').where({ account_id: accountId }).count({ n: '*' }).first().then((row) => Number(row!.n)), 0, 'no job created');
  const served = await api(gateway, key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'a fox' });
  t.is(served.status, 200);
  t.is(served.body.data.length, 1);
});

testOnBackends('a queued job whose key is then limited to other models still runs and is charged its quote once; new jobs of that model are refused', async (t, database) => {
  // No runner yet: the job stays queued while the key changes.
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const { accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const { apiKey, key } = await gateway.services.apiKeys.create({ accountId, models: ['sim/video'] });
  const created = await api(gateway, key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'a calm sea [[sim:job-seconds=0.3]]', seconds: 4 });
  t.is(created.status, 200);
  t.is(created.body.status, 'queued');
  await gateway.services.apiKeys.update(apiKey.id, { models: ['sim/image'] }, { actor: 'cli:test@host' });
  const refused = await api(gateway, key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'another sea', seconds: 4 });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'model_not_allowed');

  const runner = createJobRunner(gateway.services);
  runner.start();
  t.teardown(() => runner.stop());
  const job = await eventually(async () => {
    const row = await database.db('jobs').where({ id: created.body.id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the job ended', intervalMs: 50 });
  t.is(job.status, 'completed');
  t.deepEqual(await charges(database, accountId), [360_000n]);
  // Its usage record came with its charge: the seconds of video it was charged for (on SQLite by
  // way of the outbox, which a flush moves).
  await gateway.services.usageRecords.flush();
  const record = await database.db('usage_records').where({ request_id: job.request_id }).first();
  t.like(record, { endpoint: 'videos', model: 'sim/video', provider: 'sim', upstream_model: 'video', status: 'completed', video_seconds: 4, audio_seconds: 0, images: 0 });
  t.is(Number(record.cost_units), 360_000);
  t.is(await database.db('jobs').where({ account_id: accountId }).count({ n: '*' }).first().then((row) => Number(row!.n)), 1, 'the refused submit made no job');
  await assertJobMoneySettled(t, database, accountId);
});
