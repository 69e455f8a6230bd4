// GET /admin/v1/usage over HTTP (issue 17): the same numbers, the same JSON, as
// `gateway usage --json` (the compiled binary) on the same database, grouped every way.
import { testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { cliEnv, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

testOnBackends('GET /admin/v1/usage answers what `gateway usage --json` prints, grouped every way; 422 naming since, until or by', async (t, database) => {
  t.timeout(170_000);
  const gateway = await startGateway(t, database);
  const { token } = await createAdminToken(gateway.services);
  const first = await gateway.newClient({ balanceUnits: 10_000_000n });
  const second = await gateway.newClient({ balanceUnits: 10_000_000n });
  for (const [client, content] of [
    [first, 'one'],
    [first, 'two [[sim:tokens=7]]'],
    [second, 'three [[sim:tokens=40]]'],
  ] as const) {
    t.is((await api(gateway, client.key, 'POST', '/v1/chat/completions', { model: 'sim/chat', messages: [{ role: 'user', content }] })).status, 200);
  }
  t.is((await api(gateway, second.key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'a cat' })).status, 200);
  await gateway.services.usageRecords.flush();
  await gateway.services.requestLog.flush();

  const env = cliEnv(database);
  const period = 'since=2000-01-01&until=2100-01-01T00:00:00Z';
  for (const by of ['model', 'key', 'account', 'day'] as const) {
    const served = expectAnswer(t, await admin(gateway.url, { token }, 'GET', `/admin/v1/usage?${period}&by=${by}`), 200, 'GET', '/admin/v1/usage');
    const printed = await runCliJson(['usage', '--since', '2000-01-01', '--until', '2100-01-01T00:00:00Z', '--by', by], env);
    t.deepEqual(served, printed, `by ${by}`);
    t.is(served.totals.requests, 4);
  }
  const firstName = (await gateway.services.accounts.find(first.accountId)).name;
  const served = (await admin(gateway.url, { token }, 'GET', `/admin/v1/usage?${period}&account=${encodeURIComponent(firstName)}`)).body;
  t.deepEqual(served, await runCliJson(['usage', '--since', '2000-01-01', '--until', '2100-01-01T00:00:00Z', '--account', firstName], env));
  t.like(served, { account_id: first.accountId, by: 'model', totals: { requests: 2, media_requests: 0 } });

  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/usage'), 422, 'validation_error', 'since');
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/usage?since=yesterday'), 422, 'validation_error', 'since');
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/usage?since=2026-11-02&until=2026-11-01'), 422, 'validation_error', 'until');
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/usage?since=2026-11-01&until=soon'), 422, 'validation_error', 'until');
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/usage?since=2026-11-01&by=week'), 422, 'validation_error', 'by');
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/usage?since=2026-11-01&account=nobody'), 404, 'not_found');
});
