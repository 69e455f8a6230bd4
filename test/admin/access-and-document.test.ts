// Who may call the admin API (issue 17): an admin token or an admin session's cookie (+ CSRF
// on changes); nothing else — no credentials 401, a bad token 401, an account's session 403.
// The OpenAPI document: public, and documenting exactly the route table's /admin/v1 routes.
import test from 'ava';
import { adminOperations, openApiPath } from '../../src/admin/openapi.js';
import { routeTable } from '../../src/http/route-table.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken, loginAs } from '../helpers/cabinet.js';
import { startGateway } from '../helpers/gateway.js';
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
  // A token needs the route's scope (money moves here); a console session holds every scope.
  t.deepEqual(topup.security, [{ adminToken: ['money'] }, { adminSession: [] }]);
  t.deepEqual(document.paths['/admin/v1/accounts/{id}'].get.security, [{ adminToken: ['admin'] }, { adminSession: [] }]);
  t.regex(topup.responses['403'].description, /admin_scope_missing/);
  const log = document.paths['/admin/v1/request-log'].get;
  t.deepEqual(log.parameters.map((parameter: any) => [parameter.name, parameter.required]), [['status', false], ['model', false], ['key', false], ['account', false], ['source', false], ['since', false], ['until', false], ['limit', false], ['cursor', false]]);
  const usage = document.paths['/admin/v1/usage'].get;
  t.deepEqual(usage.parameters.find((parameter: any) => parameter.name === 'since').required, true);
  t.deepEqual(document.paths['/admin/v1/openapi.json'].get.security, []);
  t.truthy(document.components.schemas.Error);
});
