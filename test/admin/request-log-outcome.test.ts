// The request log's outcome filters (GET /admin/v1/request-log?status=failed|ok), which the
// console's "Failed" / "Succeeded" choice sends: `failed` is every request answered with an
// error — a status from 400, and also a stream that failed after its first byte (answered 200,
// its error recorded) — and `ok` every other one. `error` stays "400 and above", so the stream
// failure is in `failed` and not in `error`. Both databases.
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const chat = (content: string, stream = false) => ({ model: 'sim/chat', messages: [{ role: 'user', content }], max_tokens: 50, stream });

testOnBackends('request log: status=failed takes the 4xx/5xx answers and the stream that failed after its first byte; status=ok the rest', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { token } = await createAdminToken(gateway.services);
  const call = (route: string) => admin(gateway.url, { token }, 'GET', route);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });

  const ok = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('hello'));
  t.is(ok.status, 200);
  const streamed = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('hello', true));
  t.is(streamed.status, 200);
  const brokenStream = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('break it [[sim:fail-mid]]', true));
  t.is(brokenStream.status, 200, 'the stream had started: the status was already sent');
  t.true(String(brokenStream.body).includes('"error"'), 'the client read an error event in the stream');
  const failed = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('fail [[sim:status=500]]'));
  t.is(failed.status, 502);
  const refused = await api(gateway, client.key, 'POST', '/v1/chat/completions', { model: 'sim/chat' });
  t.is(refused.status, 422);
  await gateway.services.requestLog.flush();

  const requestIds = (answer: { body: any }) => answer.body.data.map((row: any) => row.request_id);
  const id = (answer: { headers: Headers }) => answer.headers.get('x-request-id');
  const failures = expectAnswer(t, await call('/admin/v1/request-log?status=failed'), 200, 'GET', '/admin/v1/request-log');
  t.deepEqual(requestIds({ body: failures }), [id(refused), id(failed), id(brokenStream)]);
  const streamRow = failures.data[2];
  t.is(streamRow.status, 200);
  t.like(streamRow.error, { upstream_status: 'stream_error' });
  t.truthy(streamRow.error.code);
  t.deepEqual(requestIds(await call('/admin/v1/request-log?status=ok')), [id(streamed), id(ok)]);
  t.deepEqual(requestIds(await call('/admin/v1/request-log?status=error')), [id(refused), id(failed)], 'error stays "400 and above"');
  t.deepEqual(requestIds(await call('/admin/v1/request-log?status=failed&limit=1')), [id(refused)]);
  expectRefusal(t, await call('/admin/v1/request-log?status=failure'), 422, 'validation_error', 'status');
  await assertLedgerInvariants(t, database.db);
});
