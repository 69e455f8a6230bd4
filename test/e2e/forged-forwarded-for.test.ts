// A forged X-Forwarded-For from a peer that is not a trusted proxy changes nothing (issue 30
// item 1), through HTTP on both databases. As in the compose stack, the gateway trusts exactly
// its load balancer's address — here 127.0.0.2, the client of the "load balancer" connects from
// it — and another host of the same network (127.0.0.1) sends X-Forwarded-For naming an address
// a key's IP allowlist admits: it is refused, the request log records the peer's address, the
// cabinet's login limit counts it as the peer whatever it claims, and X-Forwarded-Proto does not
// make its cookie Secure. With nothing trusted (the multi-host recipe) even the load balancer's
// header is not believed.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { Agent, fetch as undiciFetch } from 'undici';
import { parse } from 'yaml';
import { MemoryRateLimiter } from '../../src/auth/rate-limiter.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { createAdminToken, loginLinkToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

/** The load balancer's fixed address (compose gives nginx one; here a loopback address of its own). */
const loadBalancer = '127.0.0.2';
/** Another host on the same network: not a trusted proxy. */
const otherPeer = '127.0.0.1';
/** What the other host claims to be: the address the key's allowlist admits. */
const allowedClient = '203.0.113.7';

/** HTTP from a given local address (the TCP peer the gateway sees). */
function from(t: ExecutionContext, localAddress: string) {
  const agent = new Agent({ localAddress });
  t.teardown(() => agent.close());
  return (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => undiciFetch(url, { ...init, dispatcher: agent });
}

async function gatewayTrusting(t: ExecutionContext, database: TestDatabase, trustedProxies: string[]) {
  const clock = testClock();
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    raw: { ...raw, server: { ...raw.server, trusted_proxies: trustedProxies }, cabinet: { ...raw.cabinet, login_attempts_per_minute: 2 } },
    now: clock.now,
    rateLimiter: new MemoryRateLimiter(clock.now),
  });
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const { apiKey, key } = await gateway.services.apiKeys.create({ accountId, allowedIps: [allowedClient] });
  const account = await gateway.services.accounts.find(accountId);
  return { gateway, keyId: apiKey.id, key, account };
}

const chatBody = JSON.stringify({ model: 'sim/chat', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });

testOnBackends('trusting only the load balancer: a forged X-Forwarded-For from another peer passes no allowlist, and the peer is what the request log and the login limit record', async (t, database) => {
  const { gateway, keyId, key, account } = await gatewayTrusting(t, database, [loadBalancer]);
  const fromOther = from(t, otherPeer);
  const fromBalancer = from(t, loadBalancer);
  const chat = (send: typeof fromOther, forwarded: string) =>
    send(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': forwarded }, body: chatBody });

  const forged = await chat(fromOther, allowedClient);
  t.is(forged.status, 403);
  t.deepEqual(((await forged.json()) as any).error, { message: `This API key may not be used from ${otherPeer}.`, type: 'permission_error', param: null, code: 'ip_not_allowed' });
  const forgedChain = await chat(fromOther, `${allowedClient}, ${loadBalancer}`);
  t.is(forgedChain.status, 403, 'naming the load balancer as the last hop does not make the peer one');
  t.is((await chat(fromBalancer, allowedClient)).status, 200, 'the load balancer is believed: the client it forwards is admitted');

  // The request log (admin API) records each refusal with the address it judged: the peer's
  // (a refused key is not the request's key yet, so the rows are found by route, not by key).
  const admin = await createAdminToken(gateway.services);
  const rows = await eventually(async () => {
    const response = await fetch(`${gateway.url}/admin/v1/request-log`, { headers: { authorization: `Bearer ${admin.token}` } });
    const page = (await response.json()) as { data: { route: string; status: number; key_id: string | null; error: { code: string; message: string } | null }[] };
    const chats = page.data.filter((row) => row.route === '/v1/chat/completions');
    return chats.length === 3 ? chats : undefined;
  }, { what: 'three request-log rows of /v1/chat/completions' });
  t.deepEqual(rows.map((row) => [row.status, row.key_id, row.error?.message ?? null]), [
    [200, keyId, null],
    [403, null, `This API key may not be used from ${otherPeer}.`],
    [403, null, `This API key may not be used from ${otherPeer}.`],
  ]);

  // The cabinet's login limit (2 a minute here) counts the peer, whatever client it names.
  const login = (send: typeof fromOther, forwarded: string, token: string) =>
    send(`${gateway.url}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded, 'x-forwarded-proto': 'https' }, body: JSON.stringify({ token }) });
  t.is((await login(fromOther, '198.51.100.1', 'gwl_wrong')).status, 401);
  const opened = await login(fromOther, '198.51.100.2', await loginLinkToken(gateway.services, { account: account.name }));
  t.is(opened.status, 200);
  t.notRegex(opened.headers.getSetCookie()[0]!, /; Secure/, 'X-Forwarded-Proto from an untrusted peer does not make the cookie Secure');
  t.is((await database.db('cabinet_sessions').first()).address, otherPeer, 'the session keeps the peer, not the address it claimed');
  const limited = await login(fromOther, '198.51.100.3', 'gwl_wrong');
  t.is(limited.status, 429, 'three attempts from one peer naming three clients: its allowance of two is spent');
  t.is(((await limited.json()) as any).error.code, 'login_rate_limited');
  t.is((await login(fromBalancer, '198.51.100.3', 'gwl_wrong')).status, 401, 'through the load balancer, that client has an allowance of its own');
});

testOnBackends('trusting nothing (the multi-host recipe): X-Forwarded-For is believed from no peer', async (t, database) => {
  const { gateway, key } = await gatewayTrusting(t, database, []);
  for (const peer of [loadBalancer, otherPeer]) {
    const response = await from(t, peer)(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': allowedClient },
      body: chatBody,
    });
    t.is(response.status, 403);
    t.is(((await response.json()) as any).error.message, `This API key may not be used from ${peer}.`);
  }
  const login = (forwarded: string) =>
    from(t, loadBalancer)(`${gateway.url}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded }, body: JSON.stringify({ token: 'gwl_wrong' }) });
  t.deepEqual([(await login('198.51.100.1')).status, (await login('198.51.100.2')).status, (await login('198.51.100.3')).status], [401, 401, 429]);
});
