// GET and PUT /cabinet/api/low-balance (docs/payments.md, "Low balance"), on both databases:
// any member reads the settings, only an owner changes them (audited); a webhook URL is
// refused with 422 naming the field by the same rules as a job's webhook_url (documentation
// and metadata addresses never, loopback only when webhooks.allow_loopback), a malformed
// threshold or a missing field too, and a refused change keeps nothing.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { readAudit } from '../../src/audit/audit-log.js';
import { testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';

async function call(gateway: TestGateway, browser: { cookie: string; csrf: string }, method: 'GET' | 'PUT', body?: unknown) {
  const response = await fetch(`${gateway.url}/cabinet/api/low-balance`, {
    method,
    headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

testOnBackends('members read the low-balance settings, owners change them; a webhook URL the gateway must not call, a bad threshold or a missing field is 422 naming it', async (t, database) => {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, { raw: { ...raw, low_balance: { default_threshold_rub: '100' } } });
  const { accountId } = await gateway.newClient();
  const owner = await newMember(gateway.services, { accountId, role: 'owner' });
  const member = await newMember(gateway.services, { accountId, role: 'member' });
  const ownerBrowser = await userLogin(gateway.services, { accountId, userId: owner.id });
  const memberBrowser = await userLogin(gateway.services, { accountId, userId: member.id });
  const initial = { threshold_rub: null, default_threshold_rub: '100.0000', webhook_url: null };

  t.deepEqual(await call(gateway, memberBrowser, 'GET'), { status: 200, body: initial });
  t.like(await call(gateway, memberBrowser, 'PUT', { threshold_rub: '5', webhook_url: null }), { status: 403, body: { error: { code: 'owner_required' } } });

  const refused = async (body: unknown, param: string, message: RegExp) => {
    const answer = await call(gateway, ownerBrowser, 'PUT', body);
    t.is(answer.status, 422, JSON.stringify(body));
    t.is(answer.body.error.code, 'validation_error');
    t.is(answer.body.error.param, param);
    t.deepEqual(answer.body.detail[0].loc, ['body', param]);
    t.regex(answer.body.detail[0].msg, message);
  };
  await refused({ threshold_rub: '10', webhook_url: 'http://169.254.169.254/latest/meta-data' }, 'webhook_url', /169\.254\.169\.254 is .*link-local/);
  await refused({ threshold_rub: '10', webhook_url: 'http://127.0.0.1:9/hook' }, 'webhook_url', /webhooks\.allow_loopback is off/);
  await refused({ threshold_rub: '10', webhook_url: 'https://203.0.113.7/hook' }, 'webhook_url', /documentation address/);
  await refused({ threshold_rub: '10', webhook_url: 'ftp://93.184.215.14/hook' }, 'webhook_url', /only http and https/);
  await refused({ threshold_rub: '10', webhook_url: 'https://user:pw@93.184.215.14/hook' }, 'webhook_url', /credentials/);
  await refused({ threshold_rub: '-5', webhook_url: null }, 'threshold_rub', /amount in RUB/);
  await refused({ threshold_rub: '1.23456', webhook_url: null }, 'threshold_rub', /amount in RUB/);
  await refused({ threshold_rub: '10' }, 'webhook_url', /required/i);
  t.deepEqual(await call(gateway, ownerBrowser, 'GET'), { status: 200, body: initial }, 'nothing kept of the refused changes');

  const changed = await call(gateway, ownerBrowser, 'PUT', { threshold_rub: '50.5', webhook_url: 'https://93.184.215.14/low-balance' });
  t.deepEqual(changed, { status: 200, body: { threshold_rub: '50.5000', default_threshold_rub: '100.0000', webhook_url: 'https://93.184.215.14/low-balance' } });
  t.deepEqual(await call(gateway, memberBrowser, 'GET'), changed);
  const [audit] = await readAudit(gateway.services.db, { accountId, action: 'low_balance.update', limit: 5 });
  t.like(audit, { actor: `user:${owner.id}`, target: accountId, details: { threshold_rub: '50.5000', webhook_url: 'https://93.184.215.14/low-balance' } });

  t.deepEqual(await call(gateway, ownerBrowser, 'PUT', { threshold_rub: null, webhook_url: null }), { status: 200, body: initial });
  t.is((await readAudit(gateway.services.db, { accountId, action: 'low_balance.update', limit: 5 })).length, 2);
});
