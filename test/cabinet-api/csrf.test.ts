// Walks the route table: every account-cabinet route (auth `session`) needs a live session,
// and every one that changes state (any method but GET) needs the session's CSRF token —
// without it, or with a wrong one, 403 csrf_token_invalid and nothing is done.
import { loginAs, cabinetHeaders } from '../helpers/cabinet.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';
import { routeTable } from '../../src/http/route-table.js';

const sessionRoutes = routeTable.filter((route) => route.auth === 'session');
const changingRoutes = sessionRoutes.filter((route) => route.method !== 'GET');

/** A concrete path for a route pattern: `:type` an image, any other parameter 1. */
const concrete = (path: string) => path.replace(':type', 'image').replace(/:[a-z]+/g, '1');

testOnBackends('every state-changing session route refuses a request without the CSRF token, or with a wrong one: 403, nothing done', async (t, database) => {
  t.true(changingRoutes.length >= 10, `the walk found ${changingRoutes.length} routes`);
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const secretBefore = (await gateway.services.accounts.find(accountId)).webhookSecret;
  const keysBefore = await gateway.services.apiKeys.list(accountId);
  for (const route of changingRoutes) {
    const path = concrete(route.path);
    const attempts: Record<string, string>[] = [{ cookie: login.cookie }, { cookie: login.cookie, 'x-csrf-token': '0'.repeat(64) }, { cookie: login.cookie, 'x-csrf-token': '' }];
    for (const headers of attempts) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: route.method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'csrf', scopes: ['chat'], model: 'sim/chat', prompt: 'x', messages: [{ role: 'user', content: 'x' }] }),
      });
      t.is(response.status, 403, `${route.method} ${path} ${JSON.stringify(headers)}`);
      t.is(((await response.json()) as any).error.code, 'csrf_token_invalid', `${route.method} ${path}`);
    }
  }
  t.is((await gateway.services.accounts.find(accountId)).webhookSecret, secretBefore);
  // The key list may have gained the cabinet key (made on first need), never another.
  const keysAfter = await gateway.services.apiKeys.list(accountId);
  t.deepEqual(keysAfter.filter((key) => key.purpose === 'api').map((key) => [key.id, key.revokedAt]), keysBefore.filter((key) => key.purpose === 'api').map((key) => [key.id, key.revokedAt]));
  t.is((await gateway.services.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' })).length, 0);
  // With the token the same session gets through.
  const withToken = await fetch(`${gateway.url}/cabinet/api/webhook-secret/rotate`, { method: 'POST', headers: cabinetHeaders(login) });
  t.is(withToken.status, 200);
});

testOnBackends('every session route needs a live session: 401 session_required without the cookie, even with a token', async (t, database) => {
  t.true(sessionRoutes.length >= 20, `the walk found ${sessionRoutes.length} routes`);
  const gateway = await startGateway(t, database);
  for (const route of sessionRoutes) {
    const path = concrete(route.path);
    const response = await fetch(`${gateway.url}${path}`, { method: route.method, headers: { 'x-csrf-token': '0'.repeat(64), 'content-type': 'application/json' }, body: route.method === 'GET' ? undefined : '{}' });
    t.is(response.status, 401, `${route.method} ${path}`);
    t.is(((await response.json()) as any).error.code, 'session_required', `${route.method} ${path}`);
  }
});
