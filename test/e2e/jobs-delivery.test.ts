// Idempotent job creation (also under 20 concurrent duplicates), signed webhooks delivered once
// per terminal state with retries, and the video upscale settled from the upstream's cost.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { mp4Video } from '../../src/sim/media/mp4.js';
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { api, assertJobMoneySettled, charges, pollJob, startJobGateway } from '../helpers/jobs.js';

testOnBackends('idempotency: 20 concurrent duplicates make one job and one hold; a different body is 409; keys are scoped per account and endpoint', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const body = { model: 'sim/video', prompt: 'one sunrise [[sim:job-seconds=0.5]]', seconds: 4, idempotency_key: 'order-42' };
  const answers = await Promise.all(Array.from({ length: 20 }, () => api(gateway, client.key, 'POST', '/v1/videos', body)));
  t.true(answers.every((answer) => answer.status === 200), answers.map((answer) => answer.status).join(','));
  t.is(new Set(answers.map((answer) => answer.body.id)).size, 1, 'every duplicate got the same job');
  t.is(Number((await database.db('jobs').where({ account_id: client.accountId }).count({ n: '*' }).first())?.n), 1);
  t.is(Number((await database.db('holds').where({ account_id: client.accountId }).count({ n: '*' }).first())?.n), 1, 'one hold');
  const reordered = await api(gateway, client.key, 'POST', '/v1/videos', { idempotency_key: 'order-42', seconds: 4, prompt: body.prompt, model: 'sim/video', wait: true });
  t.is(reordered.body.id, answers[0]!.body.id, 'field order and wait do not make another request');
  const conflict = await api(gateway, client.key, 'POST', '/v1/videos', { ...body, prompt: 'another sunrise' });
  t.is(conflict.status, 409);
  t.regex(conflict.body.error.message, /order-42/);
  const otherEndpoint = await api(gateway, client.key, 'POST', '/v1/audio/music', { prompt: 'a tune [[sim:job-seconds=0.2]]', idempotency_key: 'order-42' });
  t.is(otherEndpoint.status, 200, 'the same key on another endpoint is another job');
  const stranger = await gateway.newClient({ balanceUnits: 10_000_000n });
  const theirs = await api(gateway, stranger.key, 'POST', '/v1/videos', body);
  t.not(theirs.body.id, answers[0]!.body.id, 'the same key in another account is another job');
  await pollJob(gateway, client.key, `/v1/videos/${answers[0]!.body.id}`);
  await pollJob(gateway, client.key, `/v1/audio/music/${otherEndpoint.body.id}`);
  await pollJob(gateway, stranger.key, `/v1/videos/${theirs.body.id}`);
  t.deepEqual(await charges(database, client.accountId), [360_000n, 72_000n]);
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('webhooks: one signed delivery per terminal state, retried after a 500 with the same webhook-id', async (t, database) => {
  const deliveries: { status: number; headers: Record<string, string>; body: string }[] = [];
  let answer500 = true;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const status = answer500 ? 500 : 200;
      answer500 = false;
      deliveries.push({ status, headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/video`;
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const secret: string = (await database.db('accounts').where({ id: client.accountId }).first()).webhook_secret;
  const created = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'hooked [[sim:job-seconds=0.3]]', webhook_url: hookUrl });
  t.is(created.status, 200);
  // Delivered is the sender's last word on a row (it never claims a delivered one again,
  // jobs/webhooks.test.ts): once the row says so, no further delivery can come.
  const row = await eventually(async () => {
    const rows = await database.db('webhook_deliveries').where({ job_id: created.body.id });
    return rows.length === 1 && rows[0].status === 'delivered' ? rows[0] : undefined;
  }, { what: 'the one webhook row of the job is delivered', intervalMs: 50 });
  t.is(row.attempts, 2);
  t.is(deliveries.length, 2, 'a 500, then one successful retry, then nothing');
  t.deepEqual(deliveries.map((delivery) => delivery.status), [500, 200]);
  t.is(deliveries[0]!.headers['webhook-id'], deliveries[1]!.headers['webhook-id']);
  for (const delivery of deliveries) {
    const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as any;
    t.is(payload.id, created.body.id);
    t.is(payload.status, 'completed');
    t.is(payload.charged_rub, '36.0000');
  }
  const wrong = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
  t.throws(() => wrong.verify(deliveries[1]!.body, deliveries[1]!.headers), undefined, 'another secret does not verify');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('video upscale: held from the file (resolution × duration × factor²), settled to the cost the upscaler reports', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const input = mp4Video({ width: 640, height: 360, seconds: 4, seed: 'upscale-test' });
  const form = new FormData();
  form.append('video', new Blob([input], { type: 'video/mp4' }), 'clip.mp4');
  form.append('upscale_factor', '2');
  form.append('prompt', 'sharper [[sim:job-seconds=0.3]] [[sim:cost=0.02]]');
  const response = await fetch(`${gateway.url}/v1/videos/upscale`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: form });
  const job = (await response.json()) as any;
  t.is(response.status, 200, JSON.stringify(job));
  t.is(job.object, 'video');
  t.is(job.size, '1280x720');
  // 1280×720 px = 0.9216 MP × 4 s × 0.90 RUB = 3.31776 → 3.3178 RUB held
  t.is(job.held_rub, '3.3178');
  const done = await pollJob(gateway, client.key, `/v1/videos/${job.id}`);
  t.is(done.status, 'completed');
  t.is(done.charged_rub, '1.8000', 'USD 0.02 reported × 90.00');
  t.deepEqual(await charges(database, client.accountId), [18_000n]);
  const content = await fetch(`${gateway.url}/v1/videos/${job.id}/content`, { headers: { authorization: `Bearer ${client.key}` } });
  t.is(content.status, 200);
  t.is(content.headers.get('content-type'), 'video/mp4');
  const notVideo = new FormData();
  notVideo.append('video', new Blob([Buffer.from('not an mp4 at all')], { type: 'video/mp4' }), 'fake.mp4');
  const refused = await fetch(`${gateway.url}/v1/videos/upscale`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: notVideo });
  t.is(refused.status, 422);
  const factor = new FormData();
  factor.append('video', new Blob([input], { type: 'video/mp4' }), 'clip.mp4');
  factor.append('upscale_factor', '3.5');
  t.is((await fetch(`${gateway.url}/v1/videos/upscale`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: factor })).status, 422);
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('webhooks: a redirect is not followed (retried, then given up); a job past its deadline fails and releases its hold', async (t, database) => {
  let targetHits = 0;
  const target = createServer((_request, response) => {
    targetHits++;
    response.end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  let redirects = 0;
  const redirecting = createServer((request, response) => {
    request.resume();
    redirects++;
    response.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` }).end();
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  t.teardown(() => Promise.all([target, redirecting].map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));
  const gateway = await startJobGateway(t, database, { jobs: { tick: '50ms', lease: '5s', deadline: '1s', concurrency: 16 } });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const late = await api(gateway, client.key, 'POST', '/v1/videos', {
    model: 'sim/video',
    prompt: 'too slow [[sim:job-seconds=20]]',
    webhook_url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/hook`,
    wait: true,
    wait_timeout: 10,
  });
  t.is(late.body.status, 'failed');
  t.is(late.body.error.code, 'deadline_exceeded');
  t.is(late.body.charged_rub, '0.0000');
  const delivery = await eventually(async () => {
    const row = await database.db('webhook_deliveries').where({ job_id: late.body.id }).first();
    return row?.status === 'failed' ? row : undefined;
  }, { what: 'the redirected delivery was given up after the configured retries', intervalMs: 100 });
  t.is(delivery.attempts, 4, 'the first attempt and one per retry delay');
  t.is(redirects, 4);
  t.is(targetHits, 0, 'the redirect target was never called');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('a webhook receiver that hangs does not hold up the runner: the next job is claimed and finished meanwhile', async (t, database) => {
  let hanging = 0;
  const receiver = createServer(() => {
    hanging++; // never answers: the attempt lasts until webhooks.timeout (10 min here) or the test's end
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    receiver.closeAllConnections();
    receiver.close(() => resolve());
  }));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/slow`;
  const gateway = await startJobGateway(t, database, {
    webhooks: { allow_loopback: true, allow_private: false, retry_delays: ['100ms'], timeout: '10m' },
  });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const first = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'hooked [[sim:job-seconds=0.2]]', webhook_url: hookUrl });
  t.is((await pollJob(gateway, client.key, `/v1/videos/${first.body.id}`)).status, 'completed');
  await eventually(() => hanging > 0, { what: 'the delivery reached the receiver' });
  t.is(hanging, 1, 'the delivery reached the receiver, which keeps it waiting');
  const second = await api(gateway, client.key, 'POST', '/v1/audio/music', { prompt: 'meanwhile [[sim:job-seconds=0.2]]' });
  const done = await pollJob(gateway, client.key, `/v1/audio/music/${second.body.id}`);
  t.is(done.status, 'completed');
  // Order, not timing: the delivery is still in its first attempt (its time limit is 10 min
  // away), so the second job was claimed and finished while it hung.
  const hung = await database.db('webhook_deliveries').where({ job_id: first.body.id }).first();
  t.like(hung, { status: 'pending', attempts: 0 });
  t.truthy(hung.lease_owner, 'the hanging attempt still holds its delivery');
  receiver.closeAllConnections(); // ends the attempt, so the gateway stops at once
});
