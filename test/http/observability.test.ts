import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { capturedLogger, startGateway } from '../helpers/gateway.js';

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

testOnBackends('an access line or request-log row that fails to be written (after the response left) is logged; the request was answered and the server keeps answering', async (t, database) => {
  const { logger, lines } = capturedLogger();
  const gateway = await startGateway(t, database, { logger });
  const { key } = await gateway.newClient();
  const record = gateway.services.requestLog.record.bind(gateway.services.requestLog);
  let failNext = true;
  gateway.services.requestLog.record = (entry) => {
    if (failNext) {
      failNext = false;
      throw new Error('request log refused the row');
    }
    record(entry);
  };
  const history = () => fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });
  const first = await history();
  t.is(first.status, 200);
  await first.arrayBuffer();
  const second = await history();
  t.is(second.status, 200);
  const secondId = second.headers.get('x-request-id');
  await second.arrayBuffer();

  const failed = lines.filter((line) => line.msg === 'observing a request failed');
  t.is(failed.length, 1);
  t.is(failed[0]!.request_id, first.headers.get('x-request-id'));
  t.is(failed[0]!.err.message, 'request log refused the row');
  t.is(lines.filter((line) => line.msg === 'request').length, 2, 'one access line per request, the failed one included');
  await gateway.services.requestLog.flush();
  t.deepEqual((await database.db('request_log').where({ route: '/v1/history' }).select('request_id')).map((row) => row.request_id), [secondId]);
});
