// 401 / 402 / 403 / 404 through the real middleware chain, in both error dialects.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { routeTable, type RouteDefinition } from '../../src/http/route-table.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

// Routes of later capabilities are declared the same way; these two stand in for them.
const extraRoutes: RouteDefinition[] = [
  { method: 'GET', path: '/v1/test/video-only', auth: 'key', scope: 'video', handler: (ctx) => void (ctx.body = { ok: true }) },
  ...['/v1/test/charge', '/v1/messages/test-charge'].map(
    (path): RouteDefinition => ({
      method: 'POST',
      path,
      auth: 'key',
      scope: 'chat',
      body: 'json',
      handler: async (ctx, services) => {
        const body = ctx.request.body as { units: number };
        const hold = await services.ledger.hold(ctx.state.apiKey!.accountId, BigInt(body.units), { ttlMs: 60_000 });
        const settlement = await services.ledger.settle(hold.id, BigInt(body.units));
        ctx.state.chargedUnits = settlement.chargedUnits;
        ctx.body = { charged: String(settlement.chargedUnits) };
      },
    }),
  ),
];

testOnBackends('missing, unknown and revoked keys are 401; Bearer and x-api-key both work', async (t, database) => {
  const gateway = await startGateway(t, database, { routes: [...routeTable, ...extraRoutes] });
  const { key, keyId } = await gateway.newClient();
  const history = (headers: Record<string, string>) => fetch(`${gateway.url}/v1/history`, { headers });

  const missing = await history({});
  t.is(missing.status, 401);
  const body = (await missing.json()) as any;
  t.is(body.error.type, 'authentication_error');
  t.is(body.error.code, 'invalid_api_key');
  t.true('param' in body.error);
  t.regex(missing.headers.get('x-request-id')!, /^req_/);

  t.is((await history({ authorization: `Bearer ${key}x` })).status, 401);
  t.is((await history({ authorization: `Basic ${key}` })).status, 401);
  t.is((await history({ authorization: `Bearer ${key}` })).status, 200);
  t.is((await history({ 'x-api-key': key })).status, 200);

  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'gw-wrong-key-0000000000000000', maxRetries: 0 });
  await t.throwsAsync(client.get('/history'), { instanceOf: OpenAI.AuthenticationError });

  // Revocation holds on the very next request.
  await gateway.services.apiKeys.revoke(keyId);
  const revoked = await history({ authorization: `Bearer ${key}` });
  t.is(revoked.status, 401);
  t.regex(((await revoked.json()) as any).error.message, /revoked/);
});

testOnBackends('a route outside the key\'s scopes is a 403 naming the scope', async (t, database) => {
  const gateway = await startGateway(t, database, { routes: [...routeTable, ...extraRoutes] });
  const chatOnly = await gateway.newClient({ scopes: ['chat'] });
  const response = await fetch(`${gateway.url}/v1/test/video-only`, { headers: { authorization: `Bearer ${chatOnly.key}` } });
  t.is(response.status, 403);
  const body = (await response.json()) as any;
  t.is(body.error.type, 'permission_error');
  t.is(body.error.code, 'insufficient_scope');
  t.regex(body.error.message, /"video" scope/);
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: chatOnly.key, maxRetries: 0 });
  await t.throwsAsync(client.get('/test/video-only'), { instanceOf: OpenAI.PermissionDeniedError });

  const video = await gateway.newClient({ scopes: ['video'] });
  t.is((await fetch(`${gateway.url}/v1/test/video-only`, { headers: { authorization: `Bearer ${video.key}` } })).status, 200);
  // /history needs only a valid key, whatever its scopes.
  t.is((await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${video.key}` } })).status, 200);
});

testOnBackends('an unaffordable hold is a 402 saying what was needed and what is available, in both dialects', async (t, database) => {
  const gateway = await startGateway(t, database, { routes: [...routeTable, ...extraRoutes] });
  const { key, accountId } = await gateway.newClient({ balanceUnits: 5_000n });
  const post = (path: string, units: number, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ units }) });

  t.is((await post('/v1/test/charge', 1_000)).status, 200);
  const refused = await post('/v1/test/charge', 4_001);
  t.is(refused.status, 402);
  const body = (await refused.json()) as any;
  t.is(body.error.code, 'insufficient_balance');
  t.regex(body.error.message, /needs 0\.4001 RUB and 0\.4000 RUB is available/);

  const anthropic = await post('/v1/messages/test-charge', 9_999, { 'x-api-key': key });
  t.is(anthropic.status, 402);
  const anthropicBody = (await anthropic.json()) as any;
  t.is(anthropicBody.type, 'error');
  t.is(anthropicBody.error.type, 'billing_error');
  t.is(anthropicBody.request_id, anthropic.headers.get('request-id'));

  // The Anthropic SDK surfaces it with the request id.
  const client = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const error = await t.throwsAsync(client.post('/v1/messages/test-charge', { body: { units: 9_999 } }));
  t.is((error as any).status, 402);
  t.regex((error as any).requestID, /^req_/);
  t.regex((error as any).message, /needs 0\.9999 RUB/);

  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.balanceUnits, 4_000n, 'only the affordable request was charged');
  t.is(balance.heldUnits, 0n);
});

testOnBackends('unknown endpoints and malformed bodies get the JSON error contract', async (t, database) => {
  const gateway = await startGateway(t, database, { routes: [...routeTable, ...extraRoutes] });
  const { key } = await gateway.newClient({ balanceUnits: 5_000n });
  const unknown = await fetch(`${gateway.url}/v1/nothing-here`);
  t.is(unknown.status, 404);
  t.is(((await unknown.json()) as any).error.code, 'unknown_endpoint');
  const malformed = await fetch(`${gateway.url}/v1/test/charge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{"units": ',
  });
  t.is(malformed.status, 422); // json_invalid, a validation failure (issue 14 item 12)
  t.is(((await malformed.json()) as any).error.type, 'invalid_request_error');
  const tooLarge = await fetch(`${gateway.url}/v1/test/charge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ units: 1, padding: 'x'.repeat(11 * 1024 * 1024) }),
  });
  t.is(tooLarge.status, 413);
});

testOnBackends('a wrong method is a 405; x-api-key is used when Authorization is not a Bearer token', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient();
  const wrongMethod = await fetch(`${gateway.url}/v1/models`, { method: 'POST' });
  t.is(wrongMethod.status, 405);
  t.is(((await wrongMethod.json()) as any).error.type, 'invalid_request_error');
  const both = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: 'Basic abc', 'x-api-key': key } });
  t.is(both.status, 200);
});
