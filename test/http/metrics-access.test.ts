// Who may read GET /metrics (issue 30 item 3), through HTTP, in each mode of the config:
// neither metrics.token_env nor metrics.listen (loopback peers only, not through a proxy), a
// Bearer token (required from everyone, 401 otherwise), a listener of its own (and none on the
// API port), and both. Refusals are the catalog's errors in the OpenAI form. Not storage: SQLite.
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import test, { type ExecutionContext } from 'ava';
import { Agent, fetch as undiciFetch } from 'undici';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { createTestDatabase } from '../helpers/backends.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

const token = 'metrics-token-5f0c1e9a7b3d4c28';

async function gatewayWith(t: ExecutionContext, metrics: Record<string, string>, env: Record<string, string> = {}) {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  // No metrics settings: the file as shipped, without the section.
  return startGateway(t, database, { raw: Object.keys(metrics).length === 0 ? raw : { ...raw, metrics }, env });
}

async function answer(response: Response | Awaited<ReturnType<typeof undiciFetch>>) {
  const text = await response.text();
  return { status: response.status, body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}

const forbidden = {
  status: 403,
  body: {
    error: {
      message: 'GET /metrics answers only this machine (a loopback connection, not through a proxy). To scrape it from elsewhere, the operator sets metrics.token_env (a Bearer token) or metrics.listen (a listener of its own).',
      type: 'permission_error',
      param: null,
      code: 'metrics_forbidden',
    },
  },
};
const unauthorized = {
  status: 401,
  body: { error: { message: 'GET /metrics requires the metrics token: Authorization: Bearer <token>.', type: 'authentication_error', param: null, code: 'metrics_unauthorized' } },
};

test('by default /metrics answers a loopback peer, and refuses a request that came through a proxy', async (t) => {
  const gateway = await gatewayWith(t, {});
  const scraped = await answer(await fetch(`${gateway.url}/metrics`));
  t.is(scraped.status, 200);
  t.regex(scraped.body, /# TYPE gateway_http_requests_total counter/);
  const loopbackAlias = new Agent({ localAddress: '127.0.0.2' });
  t.teardown(() => loopbackAlias.close());
  t.is((await undiciFetch(`${gateway.url}/metrics`, { dispatcher: loopbackAlias })).status, 200, 'all of 127.0.0.0/8 is this machine');
  const proxied: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.7' }, { 'x-real-ip': '203.0.113.7' }, { 'x-forwarded-for': '127.0.0.1' }];
  for (const header of proxied) {
    const refused = await fetch(`${gateway.url}/metrics`, { headers: header });
    t.deepEqual(await answer(refused), forbidden, `refused with ${Object.keys(header)[0]}`);
    t.regex(refused.headers.get('x-request-id')!, /^req_/);
  }
  t.is((await fetch(`${gateway.url}/healthz`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).status, 200, 'the rule is only for /metrics');
});

/** An address of this machine that is not loopback: a peer from it is what a client on the network looks like. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;

(outsideAddress ? test : test.skip)(
  `by default /metrics refuses a peer that is not loopback${outsideAddress ? '' : ' (SKIPPED: this machine has no non-loopback IPv4 address)'}`,
  async (t) => {
    const gateway = await gatewayWith(t, {});
    const fromNetwork = new Agent({ localAddress: outsideAddress! });
    t.teardown(() => fromNetwork.close());
    t.deepEqual(await answer(await undiciFetch(`${gateway.url}/metrics`, { dispatcher: fromNetwork })), forbidden);
    t.is((await undiciFetch(`${gateway.url}/healthz`, { dispatcher: fromNetwork })).status, 200, 'the same peer reaches the API');
  },
);

test('metrics.token_env: /metrics wants Authorization: Bearer <token> from everyone, loopback too; 401 otherwise', async (t) => {
  const gateway = await gatewayWith(t, { token_env: 'TEST_METRICS_TOKEN' }, { TEST_METRICS_TOKEN: token });
  for (const authorization of [undefined, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${Buffer.from(`x:${token}`).toString('base64')}`, 'Bearer ', token]) {
    const refused = await fetch(`${gateway.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
    t.deepEqual(await answer(refused), unauthorized, `refused: ${authorization ?? 'no header'}`);
    t.is(refused.headers.get('www-authenticate'), 'Bearer realm="metrics"');
  }
  const scraped = await answer(await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.7' } }));
  t.is(scraped.status, 200, 'with the token, from anywhere (a proxy too)');
  t.regex(scraped.body, /gateway_http_requests_total\{route="\/metrics",method="GET",status="401"\} 6/);
});

test('metrics.token_env naming an unset variable or a short token: the gateway does not start (no /metrics without its token)', async (t) => {
  const unset = await t.throwsAsync(gatewayWith(t, { token_env: 'TEST_METRICS_TOKEN' }));
  t.is(unset!.message, "invalid configuration in the environment:\n  - metrics.token_env names TEST_METRICS_TOKEN, which is not set in this process's environment: set it to the token Prometheus sends, or remove metrics.token_env");
  const short = await t.throwsAsync(gatewayWith(t, { token_env: 'TEST_METRICS_TOKEN' }, { TEST_METRICS_TOKEN: 'change-me' }));
  t.is(short!.message, 'invalid configuration in the environment:\n  - the metrics token in TEST_METRICS_TOKEN has 9 characters; use at least 16 (e.g. openssl rand -hex 32)');
  // Commands that serve nothing load the same file without the token.
  t.is(loadConfig({ raw: { metrics: { token_env: 'TEST_METRICS_TOKEN' } }, env: {} }).metrics.token, undefined);
});

test('metrics.listen: /metrics on its own listener, for whoever reaches it; the API port no longer serves it', async (t) => {
  const gateway = await gatewayWith(t, { listen: '127.0.0.1:0' });
  t.regex(gateway.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.not(gateway.metricsUrl, gateway.url);
  t.is((await fetch(`${gateway.url}/healthz`)).status, 200);
  const onApiPort = await answer(await fetch(`${gateway.url}/metrics`));
  t.deepEqual(onApiPort, { status: 404, body: { error: { message: 'Unknown endpoint: GET /metrics', type: 'invalid_request_error', param: null, code: 'unknown_endpoint' } } });
  const scraped = await answer(await fetch(`${gateway.metricsUrl}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } }));
  t.is(scraped.status, 200, 'no loopback rule there: its address is the protection');
  t.regex(scraped.body, /gateway_http_requests_total\{route="\/healthz",method="GET",status="200"\} 1/, "the API port's requests are counted in the same registry");
  for (const path of ['/v1/models', '/healthz', '/admin/v1/accounts']) t.is((await fetch(`${gateway.metricsUrl}${path}`)).status, 404, `${path}: only /metrics there`);
});

test('metrics.listen with metrics.token_env: the own listener wants the token too', async (t) => {
  const gateway = await gatewayWith(t, { listen: '127.0.0.1:0', token_env: 'TEST_METRICS_TOKEN' }, { TEST_METRICS_TOKEN: token });
  t.deepEqual(await answer(await fetch(`${gateway.metricsUrl}/metrics`)), unauthorized);
  t.is((await fetch(`${gateway.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  t.is((await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status, 404);
});

test('metrics settings are checked with the rest of the file', (t) => {
  t.deepEqual(loadConfig({ raw: { metrics: { listen: '[::1]:9464' } }, env: {} }).metrics.listen, { host: '::1', port: 9464 });
  t.deepEqual(loadConfig({ raw: {}, env: {} }).metrics, { tokenEnv: undefined, token: undefined, tokenProblem: undefined, listen: undefined });
  t.regex(t.throws(() => loadConfig({ raw: { metrics: { listen: '9464' } }, env: {} }))!.message, /metrics\.listen: expected host:port, such as 127\.0\.0\.1:9464 or \[::1\]:9464/);
  t.regex(t.throws(() => loadConfig({ raw: { metrics: { listen: '127.0.0.1:70000' } }, env: {} }))!.message, /metrics\.listen: expected a port number 0-65535, got 70000/);
  t.regex(t.throws(() => loadConfig({ raw: { metrics: { token_env: 'metrics token' } }, env: {} }))!.message, /metrics\.token_env: expected the name of an environment variable/);
});
