// Who may call the admin API (issue 17): an admin token or an admin session's cookie (+ CSRF
// on changes); nothing else — no credentials 401, a bad token 401, an account's session 403.
// The OpenAPI document: public, and documenting exactly the route table's /admin/v1 routes.
// The usage report over HTTP: the same numbers as `gateway usage --json`.
import test from 'ava';
import { adminOperations, openApiPath } from '../../src/admin/openapi.js';
import { routeTable } from '../../src/http/route-table.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken, loginAs } from '../helpers/cabinet.js';
import { cliEnv, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

testOnBackends('no credentials 401, a bad token 401, an account session 403; an admin session works with its CSRF token on changes and is the audit actor', async (t, database) => {
  const gateway = await startGateway(t, database);
  const account = await gateway.services.accounts.create('acme');
  const { token } = await createAdminToken(gateway.services);

  for (const [method, route] of [
    ['GET', '/admin/v1/accounts'],
    ['POST', `/admin/v1/accounts/${account.id}/topup`],
    ['GET', '/admin/v1/system'],
  ] as const) {
    const body = method === 'POST' ? { amount_rub: '1' } : undefined;
    expectRefusal(t, await admin(gateway.url, undefined, method, route, body), 401, 'session_required');
    expectRefusal(t, await admin(gateway.url, { token: 'gwa_not-a-real-token' }, method, route, body), 401, 'admin_token_invalid');
    // An API key is no admin credential either.
    const client = await gateway.newClient();
    expectRefusal(t, await admin(gateway.url, { token: client.key }, method, route, body), 401, 'admin_token_invalid');
  }
  const accountSession = await loginAs(gateway.url, gateway.services, { account: 'acme' });
  expectRefusal(t, await admin(gateway.url, accountSession, 'GET', '/admin/v1/accounts'), 403, 'forbidden');
  expectRefusal(t, await admin(gateway.url, accountSession, 'POST', `/admin/v1/accounts/${account.id}/topup`, { amount_rub: '1' }), 403, 'forbidden');

  const operator = await loginAs(gateway.url, gateway.services, { admin: true });
  const listed = expectAnswer(t, await admin(gateway.url, { cookie: operator.cookie }, 'GET', '/admin/v1/accounts'), 200, 'GET', '/admin/v1/accounts');
  t.deepEqual(listed.data.map((row: any) => row.name).slice(0, 1), ['acme']);
  expectRefusal(t, await admin(gateway.url, { cookie: operator.cookie }, 'POST', `/admin/v1/accounts/${account.id}/topup`, { amount_rub: '1' }), 403, 'csrf_token_invalid');
  expectRefusal(t, await admin(gateway.url, { cookie: operator.cookie, csrf: 'x'.repeat(64) }, 'POST', `/admin/v1/accounts/${account.id}/topup`, { amount_rub: '1' }), 403, 'csrf_token_invalid');
  t.is(await database.db('ledger_transactions').where({ account_id: account.id }).count({ n: '*' }).first().then((row) => Number(row!.n)), 0, 'nothing written without the CSRF token');
  const topup = expectAnswer(t, await admin(gateway.url, operator, 'POST', `/admin/v1/accounts/${account.id}/topup`, { amount_rub: '7.0007', reason: 'from the console' }), 200, 'POST', '/admin/v1/accounts/:id/topup');
  t.like(topup, { amount_rub: '7.0007', balance_rub: '7.0007' });
  const session: { id: string } = await database.db('cabinet_sessions').where({ kind: 'admin' }).first('id');
  const audit = (await admin(gateway.url, operator, 'GET', '/admin/v1/audit?action=balance.topup')).body;
  t.deepEqual(audit.data.map((entry: any) => [entry.actor, entry.target, entry.details.amount_rub]), [[`cabinet:${session.id}`, account.id, '7.0007']]);
  await assertLedgerInvariants(t, database.db);
});

test('the OpenAPI document is public and documents exactly the /admin/v1 routes of the route table', async (t) => {
  const tableRoutes = routeTable.filter((route) => route.path.startsWith('/admin/v1/')).map((route) => `${route.method} ${route.path}`);
  const documented = adminOperations.map((operation) => `${operation.method} ${operation.path}`);
  t.deepEqual([...documented].sort(), [...tableRoutes].sort());
  t.is(new Set(documented).size, documented.length, 'each route documented once');
  // Everything but the document itself takes admin credentials.
  for (const route of routeTable.filter((candidate) => candidate.path.startsWith('/admin/v1/'))) {
    t.is(route.auth, route.path === '/admin/v1/openapi.json' ? 'none' : 'admin', `${route.method} ${route.path}`);
  }
});

testOnBackends('GET /admin/v1/openapi.json: served without credentials, OpenAPI 3.1, every operation with its parameters, body and answers', async (t, database) => {
  const gateway = await startGateway(t, database);
  const served = await admin(gateway.url, undefined, 'GET', '/admin/v1/openapi.json');
  t.is(served.status, 200);
  const document = served.body;
  t.is(document.openapi, '3.1.0');
  const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`));
  t.deepEqual(operations.sort(), adminOperations.map((operation) => `${operation.method} ${openApiPath(operation.path)}`).sort());
  const topup = document.paths['/admin/v1/accounts/{id}/topup'].post;
  t.deepEqual(topup.parameters.map((parameter: any) => [parameter.name, parameter.in, parameter.required]), [['id', 'path', true]]);
  t.deepEqual(topup.requestBody.content['application/json'].schema.required, ['amount_rub']);
  t.is(topup.requestBody.content['application/json'].schema.properties.amount_rub.type, 'string');
  t.deepEqual(Object.keys(topup.responses).sort(), ['200', '401', '403', '404', '422']);
  t.deepEqual(topup.security, [{ adminToken: [] }, { adminSession: [] }]);
  const log = document.paths['/admin/v1/request-log'].get;
  t.deepEqual(log.parameters.map((parameter: any) => [parameter.name, parameter.required]), [['status', false], ['model', false], ['key', false], ['account', false], ['limit', false], ['cursor', false]]);
  const usage = document.paths['/admin/v1/usage'].get;
  t.deepEqual(usage.parameters.find((parameter: any) => parameter.name === 'since').required, true);
  t.deepEqual(document.paths['/admin/v1/openapi.json'].get.security, []);
  t.truthy(document.components.schemas.Error);
});

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
