// The request log's source (issue 30, item 13): each row says whether it was the API's traffic
// (`api`: /v1/…) or a call of the web cabinet's pages (`cabinet`: /cabinet/api/…, through the
// account's cabinet key); GET /admin/v1/request-log filters by it and by time (since
// inclusive, until exclusive, each optional). The admin API's own calls are not logged. Both
// databases, over HTTP, every answer checked against its published schema.
import { testOnBackends } from '../helpers/backends.js';
import { cabinetHeaders, createAdminToken, loginAs } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const start = Date.UTC(2026, 10, 28, 9, 0, 0);
const hour = 3_600_000;

testOnBackends('request log: source api for /v1 traffic, cabinet for the cabinet pages\' calls; filtered by source and by since/until; the admin API is not logged', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { token } = await createAdminToken(gateway.services);
  const call = (route: string) => admin(gateway.url, { token }, 'GET', route);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const id = (answer: { headers: Headers }) => answer.headers.get('x-request-id');

  const chat = await api(gateway, client.key, 'POST', '/v1/chat/completions', { model: 'sim/chat', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 });
  t.is(chat.status, 200);
  clock.advance(hour);
  const login = await loginAs(gateway.url, gateway.services, { account: client.accountId });
  const overview = await fetch(`${gateway.url}/cabinet/api/overview`, { headers: cabinetHeaders(login) });
  t.is(overview.status, 200);
  await overview.text();
  const playground = await fetch(`${gateway.url}/cabinet/api/chat/completions`, {
    method: 'POST',
    headers: cabinetHeaders(login, { 'content-type': 'application/json' }),
    body: JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'from the playground' }], max_tokens: 20 }),
  });
  t.is(playground.status, 200);
  await playground.text();
  clock.advance(hour);
  const history = await api(gateway, client.key, 'GET', '/v1/history');
  t.is(history.status, 200);
  await gateway.services.requestLog.flush();

  const all = expectAnswer(t, await call('/admin/v1/request-log'), 200, 'GET', '/admin/v1/request-log');
  const cabinetKey = await database.db('api_keys').where({ account_id: client.accountId, purpose: 'cabinet' }).first();
  t.deepEqual(
    all.data.map((row: any) => [row.request_id, row.source, row.route, row.key_id, row.created_at]),
    [
      [id(history), 'api', '/v1/history', client.keyId, '2026-11-28T11:00:00.000Z'],
      [id(playground), 'cabinet', '/cabinet/api/chat/completions', cabinetKey.id, '2026-11-28T10:00:00.000Z'],
      [id(overview), 'cabinet', '/cabinet/api/overview', cabinetKey.id, '2026-11-28T10:00:00.000Z'],
      [id(chat), 'api', '/v1/chat/completions', client.keyId, '2026-11-28T09:00:00.000Z'],
    ],
    'the login (no key yet) and the admin API\'s calls are not in the log',
  );
  t.like(all.data[1], { model: 'sim/chat', account_id: client.accountId, status: 200 });

  const ids = async (query: string) => expectAnswer(t, await call(`/admin/v1/request-log?${query}`), 200, 'GET', '/admin/v1/request-log').data.map((row: any) => row.request_id);
  t.deepEqual(await ids('source=cabinet'), [id(playground), id(overview)]);
  t.deepEqual(await ids('source=api'), [id(history), id(chat)]);
  t.deepEqual(await ids('source=cabinet&model=sim/chat'), [id(playground)]);
  t.deepEqual(await ids('since=2026-11-28T10:00:00Z'), [id(history), id(playground), id(overview)], 'since is inclusive');
  t.deepEqual(await ids('until=2026-11-28T10:00:00Z'), [id(chat)], 'until is exclusive');
  t.deepEqual(await ids('since=2026-11-28T09:30:00Z&until=2026-11-28T11:00:00Z&source=api'), []);
  t.deepEqual(await ids('since=2026-11-28&until=2026-11-29&source=api&limit=1'), [id(history)], 'days are UTC midnights');

  expectRefusal(t, await call('/admin/v1/request-log?source=admin'), 422, 'validation_error', 'source');
  expectRefusal(t, await call('/admin/v1/request-log?since=yesterday'), 422, 'validation_error', 'since');
  expectRefusal(t, await call('/admin/v1/request-log?until=2026-13-01'), 422, 'validation_error', 'until');
  expectRefusal(t, await call('/admin/v1/request-log?since=2026-11-28T10:00:00Z&until=2026-11-28T10:00:00Z'), 422, 'validation_error', 'until');
});
