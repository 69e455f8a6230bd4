// Admin token scopes (issue 30 item 2). The mapping every admin route is held to is written out
// here, once, as docs/admin-api.md states it: the route table must declare exactly it (a new
// admin route fails the first test until it has a row here), and the OpenAPI document must
// publish it. Then the whole matrix over HTTP on both databases: every admin route called with
// a token of each single scope is answered (allowed) or 403 admin_scope_missing naming the
// scope (refused, nothing done); a token of every scope and an operator's console session are
// allowed everywhere.
import test from 'ava';
import { adminOperations } from '../../src/admin/openapi.js';
import { allAdminScopes, type AdminScope } from '../../src/cabinet/admin-scopes.js';
import { routeTable } from '../../src/http/route-table.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { loginAs, testActor } from '../helpers/cabinet.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { newMember } from '../helpers/users.js';
import { yookassaConfig } from '../payments/yookassa-flow.js';
import { customerPayment } from './payment-fixtures.js';
import { admin, type Credentials, expectAnswer } from './admin-helpers.js';

/** What the test needs to call a route: ids made before the matrix runs. */
interface Fixture {
  readonly gateway: TestGateway;
  readonly keyId: string;
  /** A user who is a member of acme (disabled and enabled by the users rows). */
  readonly userId: string;
  /** A queued video job, fresh for each call (a cancelled job cannot be cancelled again). */
  newJob(): Promise<string>;
  /** The account that pays the charges below. */
  readonly clientAccountId: string;
  /** The request id of a fresh chat charge (a charge is refunded once). */
  newCharge(): Promise<string>;
  newAccountName(): string;
  /** A batch of redemption codes (cbat_…), made as `gateway codes create` makes it. */
  newCodeBatch(): Promise<string>;
  /** A customer's payment of 100 RUB, paid through the simulated YooKassa (each allowed refund takes 1 RUB of it). */
  readonly paymentId: string;
}

interface RouteCase {
  readonly scope: AdminScope;
  /** The call and the status an allowed caller gets. */
  request(fixture: Fixture): Promise<{ path: string; body?: unknown }>;
  readonly status: 200 | 201;
}

const acme = '/admin/v1/accounts/acme';

/** THE mapping (docs/admin-api.md, Scopes): read = a GET revealing no secret, money = anything moving or releasing money, admin = secrets. */
const expected: Record<string, RouteCase> = {
  'GET /admin/v1/accounts': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/accounts' }) },
  'POST /admin/v1/accounts': { scope: 'accounts', status: 201, request: async (fixture) => ({ path: '/admin/v1/accounts', body: { name: fixture.newAccountName() } }) },
  'GET /admin/v1/accounts/:id': { scope: 'admin', status: 200, request: async () => ({ path: acme }) },
  'POST /admin/v1/accounts/:id/disable': { scope: 'accounts', status: 200, request: async () => ({ path: `${acme}/disable`, body: { reason: 'scopes test' } }) },
  'POST /admin/v1/accounts/:id/enable': { scope: 'accounts', status: 200, request: async () => ({ path: `${acme}/enable`, body: {} }) },
  'POST /admin/v1/accounts/:id/topup': { scope: 'money', status: 200, request: async () => ({ path: `${acme}/topup`, body: { amount_rub: '2.5' } }) },
  'POST /admin/v1/accounts/:id/adjust': { scope: 'money', status: 200, request: async () => ({ path: `${acme}/adjust`, body: { amount_rub: '-0.5', reason: 'scopes test' } }) },
  'GET /admin/v1/accounts/:id/transactions': { scope: 'read', status: 200, request: async () => ({ path: `${acme}/transactions` }) },
  'POST /admin/v1/accounts/:id/refund': { scope: 'money', status: 200, request: async (fixture) => ({ path: `/admin/v1/accounts/${fixture.clientAccountId}/refund`, body: { request_id: await fixture.newCharge(), reason: 'scopes test' } }) },
  'POST /admin/v1/accounts/:id/login-link': { scope: 'admin', status: 201, request: async () => ({ path: `${acme}/login-link` }) },
  'GET /admin/v1/accounts/:id/keys': { scope: 'read', status: 200, request: async () => ({ path: `${acme}/keys` }) },
  'POST /admin/v1/accounts/:id/keys': { scope: 'keys', status: 201, request: async () => ({ path: `${acme}/keys`, body: { name: 'made by scope test' } }) },
  'PATCH /admin/v1/keys/:id': { scope: 'keys', status: 200, request: async (fixture) => ({ path: `/admin/v1/keys/${fixture.keyId}`, body: { budget_rub: '3', rpm: 30 } }) },
  'POST /admin/v1/keys/:id/revoke': { scope: 'keys', status: 200, request: async (fixture) => ({ path: `/admin/v1/keys/${fixture.keyId}/revoke` }) },
  'GET /admin/v1/users': { scope: 'accounts', status: 200, request: async () => ({ path: '/admin/v1/users?account=acme' }) },
  'GET /admin/v1/users/:id': { scope: 'accounts', status: 200, request: async (fixture) => ({ path: `/admin/v1/users/${fixture.userId}` }) },
  'POST /admin/v1/users/:id/disable': { scope: 'accounts', status: 200, request: async (fixture) => ({ path: `/admin/v1/users/${fixture.userId}/disable` }) },
  'POST /admin/v1/users/:id/enable': { scope: 'accounts', status: 200, request: async (fixture) => ({ path: `/admin/v1/users/${fixture.userId}/enable` }) },
  'GET /admin/v1/request-log': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/request-log' }) },
  'GET /admin/v1/jobs': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/jobs' }) },
  'POST /admin/v1/jobs/:id/cancel': { scope: 'money', status: 200, request: async (fixture) => ({ path: `/admin/v1/jobs/${await fixture.newJob()}/cancel` }) },
  'GET /admin/v1/upstreams': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/upstreams' }) },
  'GET /admin/v1/system': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/system' }) },
  'GET /admin/v1/usage': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/usage?since=2026-01-01' }) },
  'GET /admin/v1/audit': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/audit' }) },
  'GET /admin/v1/invites': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/invites?all=true' }) },
  'POST /admin/v1/invites': { scope: 'accounts', status: 201, request: async () => ({ path: '/admin/v1/invites', body: { count: 1, expires: '7d' } }) },
  'POST /admin/v1/invites/:id/revoke': {
    scope: 'accounts',
    status: 200,
    request: async (fixture) => {
      const [made] = await fixture.gateway.services.users.invites.create({ count: 1, expiresAt: null, actor: testActor });
      return { path: `/admin/v1/invites/${made!.invite.id}/revoke` };
    },
  },
  'GET /admin/v1/codes': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/codes' }) },
  'POST /admin/v1/codes': { scope: 'money', status: 201, request: async () => ({ path: '/admin/v1/codes', body: { amount_rub: '10', count: 2, expires: '7d' } }) },
  'GET /admin/v1/codes/:batchId': { scope: 'read', status: 200, request: async (fixture) => ({ path: `/admin/v1/codes/${await fixture.newCodeBatch()}` }) },
  // A fresh batch for each call: disabling a disabled batch writes no audit row.
  'POST /admin/v1/codes/:id/disable': { scope: 'money', status: 200, request: async (fixture) => ({ path: `/admin/v1/codes/${await fixture.newCodeBatch()}/disable` }) },
  'GET /admin/v1/payments': { scope: 'read', status: 200, request: async () => ({ path: '/admin/v1/payments?status=succeeded' }) },
  'GET /admin/v1/payments/:id': { scope: 'read', status: 200, request: async (fixture) => ({ path: `/admin/v1/payments/${fixture.paymentId}` }) },
  'POST /admin/v1/payments/:id/refund': { scope: 'money', status: 201, request: async (fixture) => ({ path: `/admin/v1/payments/${fixture.paymentId}/refund`, body: { amount_rub: '1', reason: 'scopes test' } }) },
};

const adminRoutes = routeTable.filter((route) => route.auth === 'admin');

test('every admin route of the route table declares an admin scope, the one the documented mapping gives it; the OpenAPI document publishes the same', (t) => {
  t.true(adminRoutes.length > 0);
  const declared = Object.fromEntries(adminRoutes.map((route) => [`${route.method} ${route.path}`, route.scope]));
  for (const [route, scope] of Object.entries(declared)) t.true((allAdminScopes as readonly unknown[]).includes(scope), `${route} declares an admin scope: ${String(scope)}`);
  t.deepEqual(declared, Object.fromEntries(Object.entries(expected).map(([route, routeCase]) => [route, routeCase.scope])), 'each admin route has a row in this test, with the scope the route table declares');
  // Nothing under /admin/v1 but the public document escapes admin auth.
  t.deepEqual(routeTable.filter((route) => route.path.startsWith('/admin/v1/') && route.auth !== 'admin').map((route) => route.path), ['/admin/v1/openapi.json']);
  const documented = Object.fromEntries(adminOperations.filter((operation) => !operation.public).map((operation) => [`${operation.method} ${operation.path}`, operation.scope]));
  t.deepEqual(documented, declared);
});

testOnBackends('the whole matrix: every admin route × every admin scope over HTTP is answered when the token has the route\'s scope, else 403 admin_scope_missing naming it, nothing done; a token of every scope and a console session pass everywhere', async (t, database) => {
  t.timeout(170_000);
  const gateway = await startGateway(t, database, { raw: yookassaConfig() }); // no job runner: the jobs stay queued, cancellable
  const { id: acmeId } = await gateway.services.accounts.create('acme');
  const member = await newMember(gateway.services, { accountId: acmeId, role: 'owner' });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const { apiKey } = await gateway.services.apiKeys.create({ accountId: client.accountId, name: 'to revoke' });
  const payer = await gateway.services.accounts.create('payer');
  const { payment } = await customerPayment(t, gateway, payer.id, '100');
  let accounts = 0;
  const fixture: Fixture = {
    paymentId: payment.id,
    gateway,
    keyId: apiKey.id,
    userId: member.id,
    async newJob() {
      const video = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'to cancel', seconds: 4 });
      if (video.status !== 200) throw new Error(`POST /v1/videos answered ${video.status}: ${JSON.stringify(video.body)}`);
      return video.body.id as string;
    },
    newAccountName: () => `scoped-${accounts++}`,
    newCodeBatch: async () => (await gateway.services.codes.create({ amountUnits: 10_000n, count: 1, expiresAt: null, actor: testActor, at: gateway.services.now() })).batch.id,
    clientAccountId: client.accountId,
    async newCharge() {
      const chat = await api(gateway, client.key, 'POST', '/v1/chat/completions', { model: 'sim/chat', messages: [{ role: 'user', content: 'to refund' }] });
      if (chat.status !== 200) throw new Error(`POST /v1/chat/completions answered ${chat.status}: ${JSON.stringify(chat.body)}`);
      return chat.headers.get('x-request-id')!;
    },
  };

  const tokens = new Map<AdminScope, string>();
  for (const scope of allAdminScopes) tokens.set(scope, (await gateway.services.cabinet.adminTokens.create({ name: `only ${scope}`, scopes: [scope], actor: testActor })).token);
  const everything = (await gateway.services.cabinet.adminTokens.create({ name: 'all', actor: testActor })).token;
  const operator = await loginAs(gateway.url, gateway.services, { admin: true });
  const callers: { name: string; credentials: Credentials; scopes: readonly AdminScope[] }[] = [
    ...allAdminScopes.map((scope) => ({ name: `token [${scope}]`, credentials: { token: tokens.get(scope)! }, scopes: [scope] })),
    { name: 'token of every scope', credentials: { token: everything }, scopes: allAdminScopes },
    { name: 'console session', credentials: operator, scopes: allAdminScopes },
  ];

  const outcomes: string[] = [];
  for (const caller of callers) {
    for (const route of adminRoutes) {
      const routeKey = `${route.method} ${route.path}`;
      const routeCase = expected[routeKey]!;
      const { path, body } = await routeCase.request(fixture);
      const answer = await admin(gateway.url, caller.credentials, route.method, path, body);
      if (caller.scopes.includes(routeCase.scope)) {
        expectAnswer(t, answer, routeCase.status, route.method, route.path);
        outcomes.push(`${caller.name} ${routeKey}: allowed`);
      } else {
        t.is(answer.status, 403, `${caller.name} ${routeKey}: ${JSON.stringify(answer.body)}`);
        t.deepEqual(answer.body, {
          error: {
            message: `This admin token lacks the "${routeCase.scope}" scope that ${routeKey} needs (its scopes: ${caller.scopes.join(', ')}). Create a token with --scopes ${routeCase.scope} (gateway admin tokens create).`,
            type: 'permission_error',
            param: null,
            code: 'admin_scope_missing',
          },
        });
        outcomes.push(`${caller.name} ${routeKey}: 403`);
      }
    }
  }
  // Each single-scope token passes exactly its own routes.
  for (const scope of allAdminScopes) {
    const own = Object.entries(expected).filter(([, routeCase]) => routeCase.scope === scope).map(([route]) => `token [${scope}] ${route}: allowed`);
    t.deepEqual(outcomes.filter((outcome) => outcome.startsWith(`token [${scope}] `) && outcome.endsWith('allowed')).sort(), own.sort());
  }
  t.is(outcomes.filter((outcome) => outcome.endsWith('403')).length, adminRoutes.length * allAdminScopes.length - adminRoutes.length);

  // Refused calls did nothing: each change was made by the three callers allowed it, once each
  // (a second revocation of the same key writes no row), every change audited with its actor.
  const actions = (await database.db('audit_log').whereNot({ actor: testActor }).groupBy('action').select('action').count({ n: '*' }).orderBy('action')) as unknown as { action: string; n: string | number }[];
  t.deepEqual(
    actions.map((row) => [row.action, Number(row.n)]),
    [
      ['account.create', 3],
      ['account.disable', 3],
      ['account.enable', 3],
      ['balance.adjust', 3],
      ['balance.refund', 3],
      ['balance.topup', 3],
      ['code_batch.create', 3],
      ['code_batch.disable', 3],
      ['invite.create', 3],
      ['invite.revoke', 3],
      ['job.cancel', 3],
      ['key.create', 3],
      ['key.revoke', 1],
      ['key.update', 3],
      ['login_link.create', 3],
      ['payment.refund', 3],
      ['payment.succeeded', 1],
      ['user.disable', 3],
      ['user.enable', 3],
    ],
  );
  const acmeAccount = await gateway.services.accounts.find('acme');
  t.is((await gateway.services.ledger.balance(acmeAccount.id)).balanceUnits, 60_000n, '3 × (2.5 − 0.5) RUB');
  t.is((await gateway.services.ledger.balance(payer.id)).balanceUnits, 970_000n, '100 RUB paid, 3 × 1 RUB refunded');
  await assertLedgerInvariants(t, database.db);
});
