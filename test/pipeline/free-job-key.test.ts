// A free job (hold 0) places no hold, so nothing in the hold re-reads its key: createJob checks
// the key as it is now on its own, as a free chat's charge does. A key read before it was
// revoked, narrowed to other scopes, or whose account was disabled, creates no job; on both DBs.
import { createJob } from '../../src/pipeline/jobs.js';
import type { ApiKey } from '../../src/auth/api-keys.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { fastJobsConfig } from '../helpers/job-config.js';

function freeJob(gateway: TestGateway, apiKey: ApiKey) {
  return createJob(gateway.services, {
    kind: 'video',
    endpoint: 'videos',
    model: 'sim/video',
    request: { prompt: 'free' },
    holdUnits: 0n,
    requestId: `req_free_${apiKey.id}`,
    prompt: 'free',
    description: 'video sim/video (free)',
    apiKey,
    scope: 'video',
  });
}

testOnBackends('a free job is created for a live key, with no hold', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
  const client = await gateway.newClient();
  const key = await gateway.services.apiKeys.find(client.keyId);
  const { job, created } = await freeJob(gateway, key);
  t.true(created);
  t.is(job.holdUnits, 0n);
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
});

for (const [change, refused] of [
  ['revoked', /revoked|not live|no longer/i],
  ['narrowed to the chat scope', /scope/i],
  ['its account disabled', /disabled/i],
] as const) {
  testOnBackends(`a free job is refused for a key read before it was ${change}: no job is created`, async (t, database) => {
    const gateway = await startGateway(t, database, { raw: fastJobsConfig() });
    const client = await gateway.newClient();
    const stale = await gateway.services.apiKeys.find(client.keyId);
    if (change === 'revoked') await gateway.services.apiKeys.revoke(stale.id);
    else if (change === 'narrowed to the chat scope') await gateway.services.apiKeys.update(stale.id, { scopes: ['chat'] }, { actor: 'test' });
    else await gateway.services.accounts.setDisabled(client.accountId, true, { reason: 'test', actor: 'test' });
    const error = await t.throwsAsync(freeJob(gateway, stale));
    t.regex(error!.message, refused);
    t.is(Number((await database.db('jobs').where({ account_id: client.accountId }).count({ n: '*' }).first())!.n), 0);
  });
}
