// Job webhooks end to end against a real loopback receiver: signatures an independent Standard
// Webhooks implementation accepts, one delivery per job, retries on the configured schedule
// with the same webhook-id, redirects never followed, refused addresses, the secret read at
// send time, and two senders on one database delivering every row exactly once.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { Accounts } from '../../src/accounts/accounts.js';
import type { Config } from '../../src/config/load.js';
import { connectDatabase } from '../../src/db/connect.js';
import { enqueueWebhook, signWebhook, WebhookSender } from '../../src/jobs/webhooks.js';
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A loopback HTTP server that records every request and answers with `answer`. */
async function startReceiver(t: ExecutionContext, answer: (request: Received, response: ServerResponse) => void = (_request, response) => response.end('ok')) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      answer(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())).then(() => server.closeAllConnections()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** A pino logger whose lines are kept, to check what is logged per attempt (and that no secret is). */
function capturingLogger() {
  const lines: Record<string, any>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

const loopbackOnly: Config['webhooks'] = { allowLoopback: true, allowPrivate: false, retryDelaysMs: [50, 50], timeoutMs: 2000 };

async function setUp(t: ExecutionContext, db: Knex, config: Partial<Config['webhooks']> = {}, now?: () => number) {
  const account = await new Accounts(db).create(`hooks-${Math.random().toString(36).slice(2)}`);
  const { logger, lines } = capturingLogger();
  const sender = new WebhookSender({ db, logger, config: { ...loopbackOnly, ...config }, owner: 'runner-a', now });
  t.teardown(() => sender.close());
  return { account, sender, lines };
}

async function deliveryOf(db: Knex, jobId: string) {
  return db('webhook_deliveries').where({ job_id: jobId }).first();
}

test('signatures follow the Standard Webhooks test vector and verify with the standardwebhooks package', (t) => {
  // The example of the Standard Webhooks specification.
  t.is(signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const body = '{"id":"video_1","status":"completed"}';
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, 'msg_1', timestamp, body) };
  t.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(secret).verify(body.replace('completed', 'failed'), headers), undefined, 'a changed body does not verify');
});

testOnBackends('a 2xx answer: one signed POST of the stored payload, delivered, never sent again', async (t, { db }) => {
  const receiver = await startReceiver(t);
  const clock = Date.now(); // held still: the stamp is exact (and real enough for the verifier's 5-minute tolerance)
  const { account, sender, lines } = await setUp(t, db, {}, () => clock);
  const payload = { id: 'video_abc', object: 'video', status: 'completed', charged_rub: '36.0000', note: 'ünïcödé' };
  await db.transaction((trx) => enqueueWebhook(trx, { jobId: 'video_abc', accountId: account.id, url: `${receiver.url}/hooks/video?kind=done`, payload }, clock));
  t.is(await sender.deliverDue(), 1);
  t.is(await sender.deliverDue(), 0, 'a delivered row is not attempted again');
  t.is(receiver.received.length, 1);
  const [request] = receiver.received;
  t.is(request!.path, '/hooks/video?kind=done');
  t.is(request!.headers['content-type'], 'application/json');
  t.is(request!.headers['user-agent'], 'gateway-webhooks/1');
  t.regex(String(request!.headers['webhook-id']), /^msg_[a-z2-7]+$/);
  t.is(request!.headers['webhook-timestamp'], String(Math.floor(clock / 1000)), "the sender's clock at the attempt, in seconds");
  t.deepEqual(new Webhook(account.webhookSecret).verify(request!.body, request!.headers as Record<string, string>), payload);
  const row = await deliveryOf(db, 'video_abc');
  t.is(row.id, request!.headers['webhook-id']);
  t.is(request!.body, row.payload, 'the body is the stored payload, byte for byte');
  t.is(row.status, 'delivered');
  t.is(row.attempts, 1);
  t.is(row.last_status, 200);
  t.is(row.lease_owner, null);
  t.truthy(row.delivered_at);
  t.deepEqual(lines.map((line) => line.msg), ['webhook delivered']);
  t.false(JSON.stringify(lines).includes(account.webhookSecret.slice(6)), 'the secret is never logged');
});

testOnBackends('a second enqueue for the same job is a no-op, also inside another transaction', async (t, { db }) => {
  const account = await new Accounts(db).create('enqueue-twice');
  await db.transaction((trx) => enqueueWebhook(trx, { jobId: 'music_1', accountId: account.id, url: 'http://127.0.0.1:9/a', payload: { status: 'completed' } }, 1000));
  await db.transaction((trx) => enqueueWebhook(trx, { jobId: 'music_1', accountId: account.id, url: 'http://127.0.0.1:9/b', payload: { status: 'failed' } }, 2000));
  await enqueueWebhook(db, { jobId: 'music_1', accountId: account.id, url: 'http://127.0.0.1:9/c', payload: { status: 'cancelled' } });
  const rows = await db('webhook_deliveries').where({ job_id: 'music_1' });
  t.is(rows.length, 1);
  t.is(rows[0].url, 'http://127.0.0.1:9/a');
  t.is(rows[0].payload, '{"status":"completed"}');
  t.is(rows[0].status, 'pending');
  t.is(Number(rows[0].next_attempt_at), 1000);
  await t.throwsAsync(
    db.transaction(async (trx) => {
      await enqueueWebhook(trx, { jobId: 'music_2', accountId: account.id, url: 'http://127.0.0.1:9/x', payload: {} });
      throw new Error('the terminal update failed');
    }),
  );
  t.is(await deliveryOf(db, 'music_2'), undefined, 'rolled back with the transaction that enqueued it');
});

testOnBackends('a 500 then a 200: retried after the first delay with the same webhook-id, a fresh timestamp and the current secret', async (t, { db }) => {
  let answers = [500, 200];
  const receiver = await startReceiver(t, (_request, response) => {
    response.writeHead(answers[0] ?? 200).end('x'.repeat(100_000)); // a long answer is cut short, not awaited
    answers = answers.slice(1);
  });
  let clock = Date.now();
  const { account, sender, lines } = await setUp(t, db, { retryDelaysMs: [30_000, 60_000] }, () => clock);
  await enqueueWebhook(db, { jobId: 'video_retry', accountId: account.id, url: `${receiver.url}/hook`, payload: { status: 'completed' } }, clock);
  t.is(await sender.deliverDue(), 1);
  let row = await deliveryOf(db, 'video_retry');
  t.is(row.status, 'pending');
  t.is(row.attempts, 1);
  t.is(row.last_status, 500);
  t.is(Number(row.next_attempt_at), clock + 30_000);
  clock += 29_999;
  t.is(await sender.deliverDue(), 0, 'not before the first retry delay');
  const rotated = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  await db('accounts').where({ id: account.id }).update({ webhook_secret: rotated });
  clock += 1;
  t.is(await sender.deliverDue(), 1);
  row = await deliveryOf(db, 'video_retry');
  t.is(row.status, 'delivered');
  t.is(row.attempts, 2);
  const [first, second] = receiver.received;
  t.is(receiver.received.length, 2);
  t.is(first!.headers['webhook-id'], second!.headers['webhook-id']);
  t.is(first!.body, second!.body);
  t.is(Number(second!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp']), 30, 'each attempt is stamped with its own time');
  t.notThrows(() => new Webhook(rotated).verify(second!.body, second!.headers as Record<string, string>), 'signed with the secret of the moment');
  t.throws(() => new Webhook(account.webhookSecret).verify(second!.body, second!.headers as Record<string, string>));
  t.deepEqual(lines.map((line) => [line.msg, line.attempts]), [['webhook delivery failed; will retry', 1], ['webhook delivered', 2]]);
  t.is(lines[0]!.retry_in_ms, 30_000);
  t.is(lines[0]!.job_id, 'video_retry');
  t.is(lines[1]!.webhook_id, lines[0]!.webhook_id);
});

testOnBackends('the retry schedule: one attempt per delay, then failed; each retry waits its own delay', async (t, { db }) => {
  const receiver = await startReceiver(t, (_request, response) => response.writeHead(503).end());
  let clock = Date.now();
  const { account, sender, lines } = await setUp(t, db, { retryDelaysMs: [50, 150] }, () => clock);
  await enqueueWebhook(db, { jobId: 'video_down', accountId: account.id, url: `${receiver.url}/hook`, payload: { status: 'failed' } }, clock);
  t.is(await sender.deliverDue(), 1, 'the first attempt is due at once');
  clock += 49;
  t.is(await sender.deliverDue(), 0, 'the first retry is not due 1 ms before its delay');
  clock += 1;
  t.is(await sender.deliverDue(), 1, 'the first retry, 50 ms after the first attempt');
  clock += 149;
  t.is(await sender.deliverDue(), 0, 'the second retry waits its own delay, not the first one');
  clock += 1;
  t.is(await sender.deliverDue(), 1, 'the second retry, 150 ms after the first');
  const row = await deliveryOf(db, 'video_down');
  t.is(row.status, 'failed');
  t.is(row.attempts, 3, 'the first attempt and one per delay');
  t.is(row.last_status, 503);
  t.is(row.last_error, 'answered 503');
  t.is(receiver.received.length, 3);
  clock += 3_600_000;
  t.is(await sender.deliverDue(), 0, 'a failed delivery is never attempted again');
  t.is(receiver.received.length, 3);
  t.is(lines.at(-1)!.msg, 'webhook delivery gave up');
});

testOnBackends('a redirect is not followed: the target is never called and the delivery is retried', async (t, { db }) => {
  const target = await startReceiver(t);
  const redirecting = await startReceiver(t, (_request, response) => response.writeHead(302, { location: `${target.url}/stolen` }).end());
  const { account, sender } = await setUp(t, db);
  await enqueueWebhook(db, { jobId: 'video_moved', accountId: account.id, url: `${redirecting.url}/hook`, payload: { status: 'completed' } });
  t.is(await sender.deliverDue(), 1);
  // deliverDue returns once the attempt's answer is in: a followed redirect would have reached
  // the target before that, so there is nothing to wait for.
  t.is(target.received.length, 0, 'the redirect target was never called');
  t.is(redirecting.received.length, 1);
  const row = await deliveryOf(db, 'video_moved');
  t.is(row.status, 'pending');
  t.is(row.attempts, 1);
  t.is(row.last_status, 302);
  t.regex(row.last_error, /redirects are not followed/);
});

testOnBackends('a timeout, a refused connection and a refused address are failed attempts, retried', async (t, { db }) => {
  const silent = await startReceiver(t, () => undefined); // never answers
  const reachable = await startReceiver(t);
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const { account, sender } = await setUp(t, db, { timeoutMs: 300, retryDelaysMs: [60_000] });
  const guarded = await setUp(t, db, { allowLoopback: false, retryDelaysMs: [60_000] });
  await enqueueWebhook(db, { jobId: 'job_silent', accountId: account.id, url: `${silent.url}/hook`, payload: {} });
  await enqueueWebhook(db, { jobId: 'job_closed', accountId: account.id, url: `http://127.0.0.1:${closedPort}/hook`, payload: {} });
  // The silent receiver never answers: that deliverDue returns at all is the time limit at work
  // (the error below says which limit ended it).
  t.is(await sender.deliverDue(), 2);
  await enqueueWebhook(db, { jobId: 'job_loopback', accountId: guarded.account.id, url: `${reachable.url}/hook`, payload: {} });
  t.is(await guarded.sender.deliverDue(), 1);
  t.is(reachable.received.length, 0, 'a loopback receiver is not connected to when loopback is not allowed');
  const timedOut = await deliveryOf(db, 'job_silent');
  const refused = await deliveryOf(db, 'job_closed');
  const guardedRow = await deliveryOf(db, 'job_loopback');
  for (const row of [timedOut, refused, guardedRow]) {
    t.is(row.status, 'pending', row.job_id);
    t.is(row.attempts, 1, row.job_id);
    t.is(row.last_status, null, row.job_id);
  }
  t.regex(timedOut.last_error, /timeout|aborted/i);
  t.regex(refused.last_error, /ECONNREFUSED/);
  t.regex(guardedRow.last_error, /refused to connect to 127\.0\.0\.1: .*loopback/);
});

testOnBackends(
  'two senders on one database racing over 20 deliveries deliver each exactly once',
  async (t, database) => {
    // Each answer takes 15 ms (the receiver's pace, not a wait of the test): claims overlap in flight.
    const receiver = await startReceiver(t, (_request, response) => setTimeout(() => response.end('ok'), 15));
    const second = connectDatabase(database.database);
    t.teardown(() => second.destroy());
    const account = await new Accounts(database.db).create('racing');
    for (let index = 0; index < 20; index++) {
      await enqueueWebhook(database.db, { jobId: `job_${index}`, accountId: account.id, url: `${receiver.url}/hook/${index}`, payload: { index } });
    }
    const senders = [database.db, second].map((db, index) => new WebhookSender({ db, logger: pino({ level: 'silent' }), config: loopbackOnly, owner: `runner-${index}` }));
    t.teardown(() => Promise.all(senders.map((sender) => sender.close())));
    const attempted = [0, 0];
    const left = async () => Number((await database.db('webhook_deliveries').whereNot({ status: 'delivered' }).count({ n: '*' }).first())?.n);
    await Promise.all(
      senders.map((sender, index) =>
        eventually(
          async () => {
            attempted[index]! += await sender.deliverDue(3);
            return (await left()) === 0;
          },
          { what: `sender ${index}: every delivery delivered`, intervalMs: 5 },
        ),
      ),
    );
    t.is(attempted[0]! + attempted[1]!, 20, `attempts per sender: ${attempted.join(' + ')}`);
    t.is(receiver.received.length, 20);
    t.is(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size, 20, 'every delivery arrived once');
    t.deepEqual(receiver.received.map((request) => request.path).sort(), Array.from({ length: 20 }, (_, index) => `/hook/${index}`).sort());
    const rows = await database.db('webhook_deliveries').select('status', 'attempts');
    t.true(rows.every((row) => row.status === 'delivered' && row.attempts === 1));
  },
  { poolMax: 4 },
);
