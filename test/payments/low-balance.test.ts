// Low-balance notices (issue 32; docs/payments.md, "Low balance"), on both databases, the check
// driven directly (as serve's and worker's timers call it) on the gateway's injected clock: a
// fall below the threshold sends one email to each owner with a confirmed address, in the
// owner's language (received by a real SMTP server); a second fall without a rise sends none;
// a rise to the threshold and a fall again (held money counts) sends one more; two instances
// checking at once notify once. An account's own threshold wins over the default, and its
// webhook URL gets the notice signed with the account's webhook secret, delivered by the job
// runner to a local HTTP server.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { lowBalanceNotices } from '../../src/process/low-balance-sweep.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { newMember, userLogin } from '../helpers/users.js';

const rub = (amount: number) => BigInt(amount) * 10_000n;

function config(extra: Record<string, unknown>): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  // check_interval: long, so the gateway's own timer never runs during the test: the test calls the check.
  return { ...raw, cabinet: { ...raw.cabinet, public_url: 'https://gateway.example.com' }, low_balance: { default_threshold_rub: '100', check_interval: '1h' }, ...extra };
}

testOnBackends('one email per fall below the threshold to each confirmed owner in their language; none again until the money rose to the threshold; two checkers notify once', async (t, database) => {
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const smtp = await startSmtpServer(t);
  const gateway = await startGateway(t, database, { raw: config({ email: { smtp_url_env: 'TEST_SMTP_URL', from: 'Gateway <gateway@example.com>' } }), env: { TEST_SMTP_URL: smtp.url }, now: clock.now });
  const { services } = gateway;
  const { accountId } = await gateway.newClient({ balanceUnits: rub(500) });
  await services.db('accounts').where({ id: accountId }).update({ name: 'acme' });
  const russian = await newMember(services, { accountId, role: 'owner', email: 'ivan@example.test' });
  await services.db('users').where({ id: russian.id }).update({ locale: 'ru' });
  await newMember(services, { accountId, role: 'owner', email: 'ann@example.test' });
  const unconfirmed = await newMember(services, { accountId, role: 'owner', email: 'unconfirmed@example.test' });
  await services.db('users').where({ id: unconfirmed.id }).update({ email_verified_at: null });
  await newMember(services, { accountId, role: 'member', email: 'member@example.test' });
  const notices = lowBalanceNotices(services);

  t.deepEqual(await notices.check(), { armed: 1, notified: 0 }, 'above the threshold: armed, nothing sent');
  t.deepEqual(await notices.check(), { armed: 0, notified: 0 });

  await services.ledger.credit(accountId, -rub(450), 'adjustment', { description: 'spent' });
  t.deepEqual(await notices.check(), { armed: 0, notified: 1 });
  const ivan = await smtp.nextTo('ivan@example.test');
  t.deepEqual(ivan, {
    to: 'ivan@example.test',
    subject: 'Заканчиваются деньги на счёте «acme»: осталось 50,00 ₽',
    text:
      'Здравствуйте!\n\nДоступный остаток счёта «acme» опустился ниже порога 100,00 ₽: сейчас доступно 50,00 ₽. Когда деньги закончатся, запросы к моделям будут отклоняться.\n\n' +
      'Пополнить баланс:\n\nhttps://gateway.example.com/cabinet/topup\n\n' +
      'Это письмо приходит один раз, когда остаток опускается ниже порога; следующее — только после того, как остаток снова поднимется до порога и опять опустится. Порог можно изменить в кабинете.\n',
  });
  const ann = await smtp.nextTo('ann@example.test');
  t.is(ann.subject, 'Low balance on "acme": 50.00 RUB left');
  t.true(ann.text.startsWith('Hello,\n\nThe available money of the account "acme" fell below its threshold of 100.00 RUB: 50.00 RUB is available now.'));
  t.is(smtp.messages.length, 2, 'owners with a confirmed address only: no member, no unconfirmed address');
  t.is(Number((await services.db('accounts').where({ id: accountId }).first('low_balance_notified_at')).low_balance_notified_at), clock.now());

  // Lower still, without a rise: nothing.
  clock.advance(60_000);
  await services.ledger.credit(accountId, -rub(10), 'adjustment', { description: 'spent' });
  t.deepEqual(await notices.check(), { armed: 0, notified: 0 });
  t.is(smtp.messages.length, 2);

  // Back to exactly the threshold re-arms; a hold of 1 RUB takes the available money below it again.
  await services.ledger.credit(accountId, rub(60), 'topup');
  t.deepEqual(await notices.check(), { armed: 1, notified: 0 });
  const hold = await services.ledger.hold(accountId, rub(1), { ttlMs: 3_600_000 });
  // Two instances check at once: one conditional UPDATE wins.
  const [first, second] = await Promise.all([lowBalanceNotices(services).check(), lowBalanceNotices(services).check()]);
  t.is(first.notified + second.notified, 1);
  t.is((await smtp.nextTo('ivan@example.test', 2)).subject, 'Заканчиваются деньги на счёте «acme»: осталось 99,00 ₽');
  t.is((await smtp.nextTo('ann@example.test', 2)).subject, 'Low balance on "acme": 99.00 RUB left');
  t.is(smtp.messages.length, 4);

  // An account's own threshold of 0 turns its notices off; a disabled account is not notified.
  await services.ledger.release(hold.id);
  await services.db('accounts').where({ id: accountId }).update({ low_balance_threshold_units: 0 });
  const other = await gateway.newClient({ balanceUnits: rub(200) });
  t.deepEqual(await notices.check(), { armed: 2, notified: 0 });
  await services.ledger.credit(other.accountId, -rub(150), 'adjustment', { description: 'spent' });
  await services.accounts.setDisabled(other.accountId, true, { reason: null, actor: 'test' });
  t.deepEqual(await notices.check(), { armed: 0, notified: 0 });
  t.is(smtp.messages.length, 4);
  await assertLedgerInvariants(t, services.db);
});

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function startReceiver(t: ExecutionContext): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/low-balance`, received };
}

testOnBackends("the account's own threshold and webhook URL: the notice is POSTed to it once, signed with the account's webhook secret (Standard Webhooks)", async (t, database) => {
  const clock = testClock();
  const receiver = await startReceiver(t);
  const raw = config({});
  const gateway = await startGateway(t, database, { raw: { ...raw, webhooks: { ...raw.webhooks, allow_loopback: true } }, now: clock.now, jobRunner: true });
  const { services } = gateway;
  const { accountId } = await gateway.newClient({ balanceUnits: rub(300) });
  const owner = await newMember(services, { accountId, role: 'owner' });
  const browser = await userLogin(services, { accountId, userId: owner.id });
  const put = await fetch(`${gateway.url}/cabinet/api/low-balance`, {
    method: 'PUT',
    headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ threshold_rub: '200', webhook_url: receiver.url }),
  });
  t.is(put.status, 200);
  t.deepEqual(await put.json(), { threshold_rub: '200.0000', default_threshold_rub: '100.0000', webhook_url: receiver.url });

  const notices = lowBalanceNotices(services);
  t.like(await notices.check(), { notified: 0 });
  await services.ledger.credit(accountId, -rub(150), 'adjustment', { description: 'spent' }); // 150: above the default, below its own 200
  t.like(await notices.check(), { notified: 1 });
  await eventually(() => receiver.received.length === 1, { what: 'the low-balance webhook' });
  const [delivery] = receiver.received;
  const body = JSON.parse(delivery!.body);
  t.deepEqual(body, {
    id: body.id,
    object: 'event',
    type: 'account.low_balance',
    created_at: Math.floor(clock.now() / 1000),
    data: { account_id: accountId, balance_rub: '150.0000', held_rub: '0.0000', available_rub: '150.0000', threshold_rub: '200.0000' },
  });
  t.regex(body.id, /^lbn_[2-7a-z]+$/);
  const webhookId = String(delivery!.headers['webhook-id']);
  t.regex(webhookId, /^msg_/);
  t.is((await services.db('webhook_deliveries').where({ id: webhookId }).first()).job_id, body.id, 'one delivery per notice, keyed by its id');
  t.is(delivery!.headers['content-type'], 'application/json');
  // The signature, checked as a receiver checks it: HMAC-SHA256 of "id.timestamp.body" with the secret's bytes.
  const secret = (await services.accounts.find(accountId)).webhookSecret;
  const timestamp = String(delivery!.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${webhookId}.${timestamp}.${delivery!.body}`).digest('base64');
  t.is(delivery!.headers['webhook-signature'], `v1,${expected}`);

  // No second notice for the same fall.
  t.like(await notices.check(), { notified: 0 });
  await eventually(async () => (await services.db('webhook_deliveries').where({ job_id: body.id }).first())?.status === 'delivered', { what: 'the delivery recorded' });
  t.is(receiver.received.length, 1);
});
