// The admin API's read side and jobs over HTTP with an admin token (issue 17), on both
// databases: the request log with each failure's error and upstream status (filters, cursor
// paging), upstream health per route (errors, latency, the pause a 429 asked for), jobs listed
// and cancelled (hold released, audited), and the system's state.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatRub } from '../../src/util/money.js';
import { installRoot } from '../../src/config/load.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const start = Date.UTC(2026, 10, 26, 9, 0, 0);

const chat = (content: string) => ({ model: 'sim/chat', messages: [{ role: 'user', content }], max_tokens: 50 });

testOnBackends('request log: failures show their error and upstream status; filters by status, model, key and account; cursor paging. Upstreams: errors, latency, cooldown', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { token } = await createAdminToken(gateway.services);
  const call = (method: string, route: string) => admin(gateway.url, { token }, method, route);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const other = await gateway.newClient({ balanceUnits: 10_000_000n });

  const ok = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('hello'));
  t.is(ok.status, 200);
  const failed = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('fail [[sim:status=500]]'));
  t.is(failed.status, 502);
  const paused = await api(gateway, client.key, 'POST', '/v1/chat/completions', chat('slow down [[sim:status=429]] [[sim:retry-after=30]]'));
  t.is(paused.status, 502);
  const unauthorized = await api(gateway, 'gw-not-a-key-at-all-0000000000000000', 'GET', '/v1/history');
  t.is(unauthorized.status, 401);
  const otherOk = await api(gateway, other.key, 'GET', '/v1/history');
  t.is(otherOk.status, 200);
  await gateway.services.requestLog.flush();

  const all = expectAnswer(t, await call('GET', '/admin/v1/request-log'), 200, 'GET', '/admin/v1/request-log');
  t.like(all, { object: 'list', has_more: false, next_cursor: null });
  t.deepEqual(
    all.data.map((row: any) => [row.request_id, row.route, row.status, row.account_id, row.key_id]),
    [
      [otherOk.headers.get('x-request-id'), '/v1/history', 200, other.accountId, other.keyId],
      [unauthorized.headers.get('x-request-id'), '/v1/history', 401, null, null],
      [paused.headers.get('x-request-id'), '/v1/chat/completions', 502, client.accountId, client.keyId],
      [failed.headers.get('x-request-id'), '/v1/chat/completions', 502, client.accountId, client.keyId],
      [ok.headers.get('x-request-id'), '/v1/chat/completions', 200, client.accountId, client.keyId],
    ],
  );
  const [, refusedRow, pausedRow, failedRow, okRow] = all.data;
  t.deepEqual(failedRow.error, { code: 'upstream_error', message: failed.body.error.message, upstream_status: '500' });
  t.deepEqual(pausedRow.error, { code: 'upstream_error', message: paused.body.error.message, upstream_status: '429' });
  t.deepEqual(refusedRow.error, { code: 'invalid_api_key', message: unauthorized.body.error.message, upstream_status: null });
  t.like(failedRow, { provider: 'sim', model: 'sim/chat', method: 'POST', charged_rub: '0.0000', created_at: new Date(start).toISOString() });
  t.is(okRow.error, null);
  const charge = await database.db('ledger_transactions').where({ request_id: okRow.request_id, kind: 'charge' }).first();
  t.is(okRow.charged_rub, formatRub(-BigInt(charge.amount_units)), 'the charge as the ledger has it');
  t.true(okRow.duration_ms > 0);

  const ids = (answer: { body: any }) => answer.body.data.map((row: any) => row.request_id);
  t.deepEqual(ids(await call('GET', '/admin/v1/request-log?status=5xx')), [pausedRow.request_id, failedRow.request_id]);
  t.deepEqual(ids(await call('GET', '/admin/v1/request-log?status=error')), [refusedRow.request_id, pausedRow.request_id, failedRow.request_id]);
  t.deepEqual(ids(await call('GET', '/admin/v1/request-log?status=401')), [refusedRow.request_id]);
  t.deepEqual(ids(await call('GET', '/admin/v1/request-log?model=sim/chat&status=200')), [okRow.request_id]);
  t.deepEqual(ids(await call('GET', `/admin/v1/request-log?key=${other.keyId}`)), [all.data[0].request_id]);
  const byName = (await database.db('accounts').where({ id: client.accountId }).first()).name;
  t.deepEqual(ids(await call('GET', `/admin/v1/request-log?account=${encodeURIComponent(byName)}`)), [pausedRow.request_id, failedRow.request_id, okRow.request_id]);
  const page1 = expectAnswer(t, await call('GET', '/admin/v1/request-log?limit=2'), 200, 'GET', '/admin/v1/request-log');
  t.like(page1, { has_more: true, next_cursor: String(refusedRow.id) });
  const page2 = (await call('GET', `/admin/v1/request-log?limit=2&cursor=${page1.next_cursor}`)).body;
  const page3 = (await call('GET', `/admin/v1/request-log?limit=2&cursor=${page2.next_cursor}`)).body;
  t.deepEqual([...page1.data, ...page2.data, ...page3.data], all.data);
  t.like(page3, { has_more: false, next_cursor: null });
  expectRefusal(t, await call('GET', '/admin/v1/request-log?status=teapot'), 422, 'validation_error', 'status');
  expectRefusal(t, await call('GET', '/admin/v1/request-log?limit=0'), 422, 'validation_error', 'limit');
  expectRefusal(t, await call('GET', '/admin/v1/request-log?cursor=-3'), 422, 'validation_error', 'cursor');
  expectRefusal(t, await call('GET', '/admin/v1/request-log?account=acc_missing'), 404, 'not_found');

  // Upstream health: the sim:chat route saw three calls, two failed; the 429 paused it 30 s.
  const upstreams = expectAnswer(t, await call('GET', '/admin/v1/upstreams'), 200, 'GET', '/admin/v1/upstreams');
  t.like(upstreams, { object: 'list', instance: gateway.services.config.instance.hostname, window_seconds: 900, has_more: false });
  const route = upstreams.data.find((entry: any) => entry.route === 'sim:chat');
  t.like(route, { provider: 'sim', upstream_model: 'chat', models: ['sim/chat'], cooldown_until: new Date(start + 30_000).toISOString(), calls: 3, errors: 2 });
  t.deepEqual(
    route.recent_errors.map((note: any) => [note.at, note.status, note.model, note.operation, note.request_id, note.job_id]),
    [
      [new Date(start).toISOString(), '429', 'sim/chat', 'chat', pausedRow.request_id, null],
      [new Date(start).toISOString(), '500', 'sim/chat', 'chat', failedRow.request_id, null],
    ],
  );
  t.true(failed.body.error.message.endsWith(route.recent_errors[1].message), 'the vendor message the client read');
  t.true(route.latency_ms.p50 <= route.latency_ms.p95 && route.latency_ms.p95 <= route.latency_ms.max);
  const idle = upstreams.data.find((entry: any) => entry.route === 'sim:image');
  t.like(idle, { calls: 0, errors: 0, latency_ms: null, recent_errors: [], cooldown_until: null });
  // The window moves on: 15 minutes later the route is quiet again, and its pause long over.
  clock.advance(15 * 60_000);
  t.like((await call('GET', '/admin/v1/upstreams')).body.data.find((entry: any) => entry.route === 'sim:chat'), { calls: 0, errors: 0, latency_ms: null, cooldown_until: null });
});

testOnBackends('jobs: listed with filters, cancelled (hold released, audited), a second cancel is 409; system: version, database, Redis, queue depth', async (t, database) => {
  const clock = testClock({ start, running: true });
  const gateway = await startGateway(t, database, { now: clock.now }); // no job runner: jobs stay queued
  const { id: tokenId, token } = await createAdminToken(gateway.services);
  const call = (method: string, route: string) => admin(gateway.url, { token }, method, route);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });

  const video = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'to cancel', seconds: 4 });
  t.is(video.status, 200);
  const music = await api(gateway, client.key, 'POST', '/v1/audio/music', { model: 'sim/song', prompt: 'to keep' });
  t.is(music.status, 200);

  const system = expectAnswer(t, await call('GET', '/admin/v1/system'), 200, 'GET', '/admin/v1/system');
  const version = (JSON.parse(readFileSync(path.join(installRoot, 'package.json'), 'utf8')) as { version: string }).version;
  t.deepEqual(system, {
    version,
    node_version: process.version,
    instance: gateway.services.config.instance.hostname,
    database: { kind: database.backend, up: true },
    redis: 'not_configured',
    jobs: { queue: [{ kind: 'music', status: 'queued', count: 1 }, { kind: 'video', status: 'queued', count: 1 }] },
  });

  const jobs = expectAnswer(t, await call('GET', '/admin/v1/jobs'), 200, 'GET', '/admin/v1/jobs');
  t.deepEqual(jobs.data.map((job: any) => [job.id, job.kind, job.account_id, job.status]).sort(), [
    [music.body.id, 'music', client.accountId, 'queued'],
    [video.body.id, 'video', client.accountId, 'queued'],
  ].sort());
  t.like(jobs, { has_more: false });
  t.deepEqual((await call('GET', '/admin/v1/jobs?kind=video&status=queued')).body.data.map((job: any) => job.id), [video.body.id]);
  t.deepEqual((await call('GET', '/admin/v1/jobs?status=completed')).body.data, []);
  t.like((await call('GET', '/admin/v1/jobs?limit=1')).body, { has_more: true });
  expectRefusal(t, await call('GET', '/admin/v1/jobs?status=lost'), 422, 'validation_error', 'status');
  expectRefusal(t, await call('GET', '/admin/v1/jobs?account=nobody'), 404, 'not_found');
  t.like(await gateway.services.ledger.balance(client.accountId), { heldUnits: 360_000n + BigInt(music.body.held_rub.replace('.', '')) });

  const cancelled = expectAnswer(t, await call('POST', `/admin/v1/jobs/${video.body.id}/cancel`), 200, 'POST', '/admin/v1/jobs/:id/cancel');
  t.like(cancelled, { id: video.body.id, kind: 'video', internal_status: 'cancelled', status: 'failed', error: { code: 'cancelled', message: 'the job was cancelled by the operator' }, hold_rub: '36.0000', cancelled: true });
  t.like(await gateway.services.ledger.balance(client.accountId), { balanceUnits: 10_000_000n, heldUnits: BigInt(music.body.held_rub.replace('.', '')) });
  expectRefusal(t, await call('POST', `/admin/v1/jobs/${video.body.id}/cancel`), 409, 'job_already_ended');
  expectRefusal(t, await call('POST', '/admin/v1/jobs/video_missing/cancel'), 404, 'not_found');
  const audit = (await call('GET', '/admin/v1/audit?action=job.cancel')).body;
  t.deepEqual(
    audit.data.map((entry: any) => [entry.actor, entry.action, entry.target, entry.account_id, entry.details]),
    [[`admin-token:${tokenId}`, 'job.cancel', video.body.id, client.accountId, { kind: 'video', model: 'sim/video', status_before: 'queued' }]],
  );
  t.deepEqual((await call('GET', '/admin/v1/system')).body.jobs, { queue: [{ kind: 'music', status: 'queued', count: 1 }] });
  await assertLedgerInvariants(t, database.db);
});
