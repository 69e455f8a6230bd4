// The YooKassa adapter (src/payments/yookassa/) against the simulated YooKassa and against a
// bare HTTP server that answers what a test needs: what it sends (Basic auth, the
// Idempotence-Key), what each kind of answer means (4xx refused, 5xx/429/202/network retried
// later), paging the list, and the checks on notifications.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import type { YookassaConfig } from '../../src/config/load.js';
import { NotificationRefusedError, ProviderRefusedError, type NewProviderPayment } from '../../src/payments/provider.js';
import { openYookassa } from '../../src/payments/yookassa/yookassa-provider.js';
import { startSimulator } from '../../src/sim/server.js';

const config: YookassaConfig = { shopId: '123456', secretKey: 'test_secret', secretKeyEnv: 'YOOKASSA_SECRET_KEY', apiUrl: 'sim', vatCode: 1, notificationAddresses: undefined };
const logger = pino({ level: 'silent' });

function newPayment(reference: string, amountMinor = 50_000n): NewProviderPayment {
  return { reference, amountMinor, currency: 'rub', description: 'Balance top-up', email: null, returnUrl: 'http://127.0.0.1:1/back', cancelUrl: 'http://127.0.0.1:1/back', locale: 'en' };
}

async function simulated(t: ExecutionContext, overrides: Partial<YookassaConfig> = {}) {
  const simulator = await startSimulator();
  t.teardown(() => simulator.close());
  const provider = openYookassa({ ...config, ...overrides }, { apiUrl: `${simulator.url}/yookassa/v3`, simulated: true, logger, now: Date.now });
  t.teardown(() => provider.close());
  return { simulator, provider };
}

/** A server answering each request with `answer`, keeping what it was sent. */
async function scriptedServer(t: ExecutionContext, answer: (request: IncomingMessage) => { status: number; body: string }) {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const { status, body: text } = answer(request);
      response.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`, seen };
}

test('create sends Basic auth with the shop id and key and our id as the Idempotence-Key; the same id gives the same payment', async (t) => {
  const created = { id: 'p-1', status: 'pending', amount: { value: '500.00', currency: 'RUB' }, created_at: '2026-11-28T10:00:00.000Z', confirmation: { type: 'redirect', confirmation_url: 'https://yoomoney.example/checkout/p-1' }, metadata: { payment_id: 'pay_1' } };
  const server = await scriptedServer(t, () => ({ status: 200, body: JSON.stringify(created) }));
  const provider = openYookassa(config, { apiUrl: server.url, simulated: false, logger, now: Date.now });
  t.teardown(() => provider.close());
  const { payment, confirmationUrl } = await provider.create(newPayment('pay_1'));
  t.is(confirmationUrl, 'https://yoomoney.example/checkout/p-1');
  t.like(payment, { id: 'p-1', status: 'pending', amountMinor: 50_000n, currency: 'rub', reference: 'pay_1' });
  t.is(server.seen.length, 1);
  const [sent] = server.seen;
  t.is(sent!.method, 'POST');
  t.is(sent!.url, '/v3/payments');
  t.is(sent!.headers.authorization, `Basic ${Buffer.from('123456:test_secret').toString('base64')}`);
  t.is(sent!.headers['idempotence-key'], 'pay_1');
  t.like(JSON.parse(sent!.body), { amount: { value: '500.00', currency: 'RUB' }, capture: true, metadata: { payment_id: 'pay_1' } });

  const { provider: simProvider } = await simulated(t);
  const first = await simProvider.create(newPayment('pay_same'));
  const again = await simProvider.create(newPayment('pay_same'));
  t.is(again.payment.id, first.payment.id);
  t.is(again.confirmationUrl, first.confirmationUrl);
  t.not((await simProvider.create(newPayment('pay_other'))).payment.id, first.payment.id);
});

test('answers: another 4xx is a refusal, 429, 5xx, 202 and a dead server are to be tried again; the secret is in no message', async (t) => {
  const answers: Record<string, { status: number; body: string }> = {
    '/v3/payments/refused': { status: 400, body: JSON.stringify({ type: 'error', id: 'e1', code: 'invalid_request', description: 'Bad amount', parameter: 'amount' }) },
    '/v3/payments/missing': { status: 404, body: JSON.stringify({ type: 'error', id: 'e2', code: 'not_found', description: 'Payment not found' }) },
    '/v3/payments/busy': { status: 429, body: JSON.stringify({ type: 'error', id: 'e3', code: 'too_many_requests' }) },
    '/v3/payments/broken': { status: 500, body: JSON.stringify({ type: 'error', id: 'e4', code: 'internal_server_error' }) },
    '/v3/payments/later': { status: 202, body: JSON.stringify({ type: 'processing', description: 'Request accepted', retry_after: 1800 }) },
    '/v3/payments/garbled': { status: 200, body: '<html>' },
    '/v3/payments/odd': { status: 200, body: JSON.stringify({ id: 'odd', status: 'paid', amount: { value: '1.00', currency: 'RUB' }, created_at: '2026-11-28T10:00:00Z' }) },
  };
  const server = await scriptedServer(t, (request) => answers[request.url!] ?? { status: 404, body: '{}' });
  const provider = openYookassa(config, { apiUrl: server.url, simulated: false, logger, now: Date.now });
  t.teardown(() => provider.close());

  const refused = await t.throwsAsync(provider.fetch('refused'), { instanceOf: ProviderRefusedError });
  t.is((refused as ProviderRefusedError).status, 400);
  t.regex(refused!.message, /400: invalid_request: Bad amount \(parameter amount\)/);
  t.is(((await t.throwsAsync(provider.fetch('missing'), { instanceOf: ProviderRefusedError })) as ProviderRefusedError).status, 404);
  for (const path of ['busy', 'broken', 'later', 'garbled', 'odd']) {
    const error = await t.throwsAsync(provider.fetch(path));
    t.false(error instanceof ProviderRefusedError, path);
    t.notRegex(error!.message, /test_secret/);
  }
  const dead = openYookassa(config, { apiUrl: 'http://127.0.0.1:1/v3', simulated: false, logger, now: Date.now });
  t.teardown(() => dead.close());
  const unreachable = await t.throwsAsync(dead.fetch('x'));
  t.false(unreachable instanceof ProviderRefusedError);
  t.regex(unreachable!.message, /could not be reached/);

  const keyless = openYookassa({ ...config, secretKey: undefined }, { apiUrl: server.url, simulated: false, logger, now: Date.now });
  t.teardown(() => keyless.close());
  await t.throwsAsync(keyless.fetch('x'), { message: /secret_key_env names YOOKASSA_SECRET_KEY, which is not set/ });
});

test('list pages through every payment since a date, newest first, 100 at a time', async (t) => {
  const { provider } = await simulated(t);
  const since = Date.now() - 1000;
  const made: string[] = [];
  for (let index = 0; index < 205; index++) made.push((await provider.create(newPayment(`pay_list_${index}`, BigInt(100 + index)))).payment.id);
  const listed: string[] = [];
  for await (const payment of provider.list(since)) listed.push(payment.id);
  t.deepEqual(listed, [...made].reverse());
  const none: string[] = [];
  for await (const payment of provider.list(Date.now() + 3_600_000)) none.push(payment.id);
  t.deepEqual(none, []);
});

test('a refund of more than is left is refused with YooKassa’s error; a refund of a pending payment too', async (t) => {
  const { simulator, provider } = await simulated(t);
  const { payment, confirmationUrl } = await provider.create(newPayment('pay_refund'));
  const pending = await t.throwsAsync(provider.refund({ providerPaymentId: payment.id, amountMinor: 100n, currency: 'rub', idempotenceKey: 'pref_0' }), { instanceOf: ProviderRefusedError });
  t.regex(pending!.message, /only a succeeded payment can be refunded/);
  const paid = await fetch(new URL(new URL(confirmationUrl).pathname, simulator.url), { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' });
  t.is(paid.status, 303);
  const first = await provider.refund({ providerPaymentId: payment.id, amountMinor: 30_000n, currency: 'rub', idempotenceKey: 'pref_1' });
  t.is(first.status, 'succeeded');
  t.deepEqual(await provider.refund({ providerPaymentId: payment.id, amountMinor: 30_000n, currency: 'rub', idempotenceKey: 'pref_1' }), first, 'the same key is the same refund');
  const tooMuch = await t.throwsAsync(provider.refund({ providerPaymentId: payment.id, amountMinor: 20_001n, currency: 'rub', idempotenceKey: 'pref_2' }), { instanceOf: ProviderRefusedError });
  t.is((tooMuch as ProviderRefusedError).status, 400);
  t.regex(tooMuch!.message, /invalid_request: Refund amount exceeds the amount available for refund \(200\.00 RUB\) \(parameter amount\)/);
  const rest = await provider.refund({ providerPaymentId: payment.id, amountMinor: 20_000n, currency: 'rub', idempotenceKey: 'pref_3' });
  t.is(rest.status, 'succeeded');
  t.deepEqual(await provider.fetchRefund!(rest.id), rest);
  t.like(await provider.fetch(payment.id), { status: 'succeeded', refundedMinor: 50_000n });
});

test('readNotification: without address ranges any peer; with them only a peer inside (IPv4-mapped too), else refused', async (t) => {
  const body = Buffer.from(JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: 'p-1' } }));
  const open = (await simulated(t)).provider;
  t.deepEqual(await open.readNotification({ headers: {}, rawBody: body, remoteAddress: '203.0.113.1' }), { providerPaymentId: 'p-1' });
  const guarded = (await simulated(t, { notificationAddresses: ['185.71.76.0/27', '77.75.156.11', '2a02:5180::/32'] })).provider;
  for (const peer of ['185.71.76.0', '185.71.76.31', '::ffff:185.71.76.7', '77.75.156.11', '2a02:5180::1']) {
    t.deepEqual(await guarded.readNotification({ headers: {}, rawBody: body, remoteAddress: peer }), { providerPaymentId: 'p-1' }, peer);
  }
  for (const peer of ['185.71.76.32', '77.75.156.12', '127.0.0.1', '2a02:5181::1', undefined]) {
    await t.throwsAsync(guarded.readNotification({ headers: {}, rawBody: body, remoteAddress: peer }), { instanceOf: NotificationRefusedError }, String(peer));
  }
});

test('start subscribes the simulator to the payment and refund events through the webhooks API, once however often', async (t) => {
  const { simulator, provider } = await simulated(t);
  await provider.start!('http://127.0.0.1:9/payments/yookassa/notifications');
  await provider.start!('http://127.0.0.1:9/payments/yookassa/notifications');
  const response = await fetch(`${simulator.url}/yookassa/v3/webhooks`, { headers: { authorization: `Basic ${Buffer.from('1:x').toString('base64')}` } });
  const { items } = (await response.json()) as { items: { event: string; url: string }[] };
  t.deepEqual(items.map((item) => item.event).sort(), ['payment.canceled', 'payment.succeeded', 'refund.succeeded']);
  t.true(items.every((item) => item.url === 'http://127.0.0.1:9/payments/yookassa/notifications'));

  // A real shop is not told: its URL is entered in the YooKassa dashboard.
  const server = await scriptedServer(t, () => ({ status: 500, body: '{}' }));
  const real = openYookassa(config, { apiUrl: server.url, simulated: false, logger, now: Date.now });
  t.teardown(() => real.close());
  await real.start!('https://gateway.example/payments/yookassa/notifications');
  t.is(server.seen.length, 0);
});
