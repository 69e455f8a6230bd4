import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('healthz, readyz and Prometheus metrics by route and status; request log rows', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key, accountId, keyId } = await gateway.newClient();
  t.deepEqual(await (await fetch(`${gateway.url}/healthz`)).json(), { status: 'ok' });
  t.deepEqual(await (await fetch(`${gateway.url}/readyz`)).json(), { status: 'ready' });
  await (await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer();
  await (await fetch(`${gateway.url}/v1/history`)).arrayBuffer();
  const metrics = await fetch(`${gateway.url}/metrics`);
  t.regex(metrics.headers.get('content-type')!, /text\/plain/);
  const text = await metrics.text();
  t.regex(text, /gateway_http_requests_total\{route="\/v1\/history",method="GET",status="200"\} 1/);
  t.regex(text, /gateway_http_requests_total\{route="\/v1\/history",method="GET",status="401"\} 1/);
  t.regex(text, /gateway_http_request_duration_seconds_bucket\{le="0.005",route="\/v1\/history",method="GET"\}/);
  t.regex(text, /# TYPE gateway_charged_units_total counter/);

  await gateway.services.requestLog.flush();
  const rows = await database.db('request_log').where({ route: '/v1/history' }).orderBy('id');
  t.is(rows.length, 2);
  t.like(rows[0], { account_id: accountId, key_id: keyId, method: 'GET', status: 200 });
  t.like(rows[1], { account_id: null, key_id: null, status: 401 });
  t.regex(rows[0].request_id, /^req_/);
});

testOnBackends('last_used_at is recorded without a write per request', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { now: clock.now });
  const { key, keyId } = await gateway.newClient();
  for (let i = 0; i < 3; i++) await (await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer();
  t.is((await gateway.services.apiKeys.find(keyId)).lastUsedAt, null, 'not written on the request path');
  t.is(await gateway.services.apiKeys.flushLastUsed(), 1, 'three uses, one pending write');
  t.is((await gateway.services.apiKeys.find(keyId)).lastUsedAt, clock.now(), "the time of the last use, on the gateway's clock");
});
