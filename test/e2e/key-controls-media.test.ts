// A key's model allowlist on the media and job routes (the chat dialects: key-controls.test.ts):
// another model is 403 model_not_allowed before anything is held or sent upstream; an allowed
// one is served and charged as usual.
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { api, startJobGateway } from '../helpers/jobs.js';

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
