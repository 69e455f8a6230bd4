// The simulated YooKassa on its own wire (src/sim/payments/yookassa.ts): what it refuses and in
// which shape, the two-stage payment, the hosted page's states, and its notifications (retried
// when refused, the fault switches none and twice).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { startSimulator } from '../../src/sim/server.js';
import { eventually } from '../helpers/eventually.js';

const auth = { authorization: `Basic ${Buffer.from('100500:test_key').toString('base64')}` };

async function simulator(t: ExecutionContext) {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${sim.url}/yookassa/v3${path}`, { method, headers: { ...auth, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  return { sim, api };
}

const paymentBody = (extra: Record<string, unknown> = {}) => ({ amount: { value: '250.00', currency: 'RUB' }, capture: true, confirmation: { type: 'redirect', return_url: 'http://shop.example/back' }, description: 'Top-up', ...extra });

/** A notification receiver: answers `statuses` in turn (then 200), keeps the bodies it got. */
async function receiver(t: ExecutionContext, statuses: number[] = []) {
  const received: { event: string; object: Record<string, any> }[] = [];
  let calls = 0;
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      calls++;
      const status = statuses.shift() ?? 200;
      if (status === 200) received.push(JSON.parse(text));
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`, received, calls: () => calls };
}

async function checkout(confirmationUrl: string, action: 'pay' | 'cancel', query = '') {
  return fetch(`${confirmationUrl}${query}`, { method: 'POST', body: new URLSearchParams({ action }), redirect: 'manual' });
}

test('the API needs Basic credentials and an Idempotence-Key, and refuses in YooKassa’s error shape', async (t) => {
  const { sim, api } = await simulator(t);
  const anonymous = await fetch(`${sim.url}/yookassa/v3/payments/x`);
  t.is(anonymous.status, 401);
  t.like(await anonymous.json(), { type: 'error', code: 'invalid_credentials' });
  const keyless = await api('POST', '/payments', paymentBody());
  t.is(keyless.status, 400);
  t.like(keyless.body, { type: 'error', code: 'invalid_request', parameter: 'Idempotence-Key' });
  t.regex(keyless.body.id, /^[0-9a-f-]{36}$/);
  const cases: [unknown, string][] = [
    [paymentBody({ amount: { value: '250.001', currency: 'RUB' } }), 'amount.value'],
    [paymentBody({ amount: { value: '250.00', currency: 'USD' } }), 'amount.currency'],
    [paymentBody({ confirmation: { type: 'embedded' } }), 'confirmation.type'],
    [paymentBody({ receipt: { customer: { email: 'a@b.example' }, items: [{ description: 'x', quantity: '1.00', amount: { value: '249.99', currency: 'RUB' }, vat_code: 1 }] } }), 'receipt.items'],
    [paymentBody({ receipt: { customer: {}, items: [{ description: 'x', quantity: '1.00', amount: { value: '250.00', currency: 'RUB' }, vat_code: 1 }] } }), 'receipt.customer'],
  ];
  for (const [body, parameter] of cases) {
    const refused = await api('POST', '/payments', body, { 'idempotence-key': `k-${parameter}` });
    t.is(refused.status, 400, parameter);
    t.is(refused.body.parameter, parameter);
  }
  t.like(await api('GET', '/payments/unknown'), { status: 404, body: { type: 'error', code: 'not_found' } });
  t.like(await api('GET', '/payments?cursor=bogus'), { status: 400, body: { parameter: 'cursor' } });
  t.like(await api('GET', '/nothing'), { status: 404, body: { code: 'not_found' } });
});

test('a receipt that adds up is taken (quantities × values), and its registration follows the payment', async (t) => {
  const { api } = await simulator(t);
  const receipt = { customer: { email: 'buyer@example.test' }, items: [{ description: 'a', quantity: '2.000', amount: { value: '100.00', currency: 'RUB' }, vat_code: 1 }, { description: 'b', quantity: 0.5, amount: { value: '100.00', currency: 'RUB' }, vat_code: '6' }] };
  const created = await api('POST', '/payments', paymentBody({ receipt }), { 'idempotence-key': 'k-receipt' });
  t.is(created.status, 200);
  t.like(created.body, { status: 'pending', paid: false, receipt_registration: 'pending', confirmation: { type: 'redirect' } });
  t.is((await checkout(created.body.confirmation.confirmation_url, 'pay')).status, 303);
  t.like((await api('GET', `/payments/${created.body.id}`)).body, { status: 'succeeded', paid: true, receipt_registration: 'succeeded', income_amount: { value: '241.25' } });
});

test('a two-stage payment waits for capture after paying, and is captured or cancelled by the shop', async (t) => {
  const { api } = await simulator(t);
  const hook = await receiver(t);
  for (const event of ['payment.waiting_for_capture', 'payment.succeeded', 'payment.canceled']) t.is((await api('POST', '/webhooks', { event, url: hook.url }, { 'idempotence-key': `wh-${event}` })).status, 200);
  const held = await api('POST', '/payments', paymentBody({ capture: false }), { 'idempotence-key': 'k-two-stage' });
  await checkout(held.body.confirmation.confirmation_url, 'pay');
  t.like((await api('GET', `/payments/${held.body.id}`)).body, { status: 'waiting_for_capture', paid: true });
  t.like(await api('POST', `/payments/${held.body.id}/capture`, {}, { 'idempotence-key': 'k-capture' }), { status: 200, body: { status: 'succeeded' } });
  const other = await api('POST', '/payments', paymentBody({ capture: false }), { 'idempotence-key': 'k-two-stage-2' });
  t.like(await api('POST', `/payments/${other.body.id}/cancel`, {}, { 'idempotence-key': 'k-cancel' }), { status: 400, body: { parameter: 'payment_id' } });
  await checkout(other.body.confirmation.confirmation_url, 'pay');
  t.like(await api('POST', `/payments/${other.body.id}/cancel`, undefined, { 'idempotence-key': 'k-cancel-2' }), { status: 200, body: { status: 'canceled', cancellation_details: { party: 'merchant', reason: 'canceled_by_merchant' } } });
  await eventually(() => hook.received.length === 4, { what: 'four notifications' });
  t.deepEqual(hook.received.map((notification) => [notification.event, notification.object.id]).sort(), [
    ['payment.canceled', other.body.id],
    ['payment.succeeded', held.body.id],
    ['payment.waiting_for_capture', held.body.id],
    ['payment.waiting_for_capture', other.body.id],
  ].sort());
});

test('notifications: a refused delivery is tried again; notify=twice sends two, notify=none (or metadata sim_notify) none', async (t) => {
  const { api } = await simulator(t);
  const hook = await receiver(t, [500, 503]);
  await api('POST', '/webhooks', { event: 'payment.succeeded', url: hook.url }, { 'idempotence-key': 'wh-1' });
  await api('POST', '/webhooks', { event: 'payment.canceled', url: hook.url }, { 'idempotence-key': 'wh-2' });
  const first = await api('POST', '/payments', paymentBody(), { 'idempotence-key': 'k-1' });
  await checkout(first.body.confirmation.confirmation_url, 'pay');
  await eventually(() => hook.received.length === 1, { what: 'the notification delivered on its third try' });
  t.is(hook.calls(), 3);
  t.like(hook.received[0], { event: 'payment.succeeded', object: { id: first.body.id, status: 'succeeded' } });

  const silent = await api('POST', '/payments', paymentBody(), { 'idempotence-key': 'k-2' });
  const silentByMetadata = await api('POST', '/payments', paymentBody({ metadata: { sim_notify: 'none' } }), { 'idempotence-key': 'k-3' });
  const doubled = await api('POST', '/payments', paymentBody(), { 'idempotence-key': 'k-4' });
  await checkout(silent.body.confirmation.confirmation_url, 'pay', '?notify=none');
  await checkout(silentByMetadata.body.confirmation.confirmation_url, 'cancel');
  await checkout(doubled.body.confirmation.confirmation_url, 'cancel', '?notify=twice');
  await eventually(() => hook.received.length === 3, { what: 'the doubled notification' });
  t.deepEqual(hook.received.slice(1).map((notification) => [notification.event, notification.object.id]), [
    ['payment.canceled', doubled.body.id],
    ['payment.canceled', doubled.body.id],
  ]);
  t.like((await api('GET', `/payments/${silent.body.id}`)).body, { status: 'succeeded' });
  t.like((await api('GET', `/payments/${silentByMetadata.body.id}`)).body, { status: 'canceled', cancellation_details: { party: 'yoo_money', reason: 'expired_on_confirmation' } });
});

test('the hosted page: a form while pending, the state and the way back after; a second press changes nothing; an unknown payment is 404', async (t) => {
  const { sim, api } = await simulator(t);
  const created = await api('POST', '/payments', paymentBody({ confirmation: { type: 'redirect', return_url: 'http://shop.example/back?x=1&y=2', locale: 'en_US' } }), { 'idempotence-key': 'k-page' });
  const url: string = created.body.confirmation.confirmation_url;
  const page = await fetch(`${url}?notify=none`);
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await page.text();
  t.regex(html, /<html lang="en">/);
  t.regex(html, /<label for="card">Card number<\/label>/);
  t.regex(html, /<dd id="amount">RUB 250\.00<\/dd>/);
  t.regex(html, /<form method="post" action="\/yookassa\/checkout\/[0-9a-f-]{36}\?notify=none">/);
  const paid = await checkout(url, 'pay');
  t.is(paid.headers.get('location'), 'http://shop.example/back?x=1&y=2');
  const after = await (await fetch(url)).text();
  t.regex(after, /<p role="status" id="state">Paid<\/p>/);
  t.notRegex(after, /<form/);
  t.regex(after, /<a href="http:\/\/shop.example\/back\?x=1&#38;y=2">Back to the shop<\/a>/);
  t.is((await checkout(url, 'cancel')).status, 303);
  t.like((await api('GET', `/payments/${created.body.id}`)).body, { status: 'succeeded' });
  const missing = await fetch(`${sim.url}/yookassa/checkout/00000000-0000-4000-8000-000000000000`);
  t.is(missing.status, 404);
  t.regex(await missing.text(), /Платёж не найден/);
  t.is((await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'steal' }) })).status, 400);
});

test('refunds: at most what is left, a partial refund of a payment with a receipt needs its receipt, the same key is the same refund', async (t) => {
  const { api } = await simulator(t);
  const receipt = { customer: { email: 'buyer@example.test' }, items: [{ description: 'Top-up', quantity: '1.00', amount: { value: '250.00', currency: 'RUB' }, vat_code: 1 }] };
  const created = await api('POST', '/payments', paymentBody({ receipt }), { 'idempotence-key': 'k-r' });
  await checkout(created.body.confirmation.confirmation_url, 'pay');
  const partialReceipt = { customer: { email: 'buyer@example.test' }, items: [{ description: 'Top-up', quantity: '1.00', amount: { value: '50.00', currency: 'RUB' }, vat_code: 1 }] };
  t.like(await api('POST', '/refunds', { payment_id: created.body.id, amount: { value: '50.00', currency: 'RUB' } }, { 'idempotence-key': 'r-0' }), { status: 400, body: { parameter: 'receipt' } });
  const partial = await api('POST', '/refunds', { payment_id: created.body.id, amount: { value: '50.00', currency: 'RUB' }, receipt: partialReceipt }, { 'idempotence-key': 'r-1' });
  t.like(partial, { status: 200, body: { payment_id: created.body.id, status: 'succeeded', amount: { value: '50.00', currency: 'RUB' } } });
  t.deepEqual((await api('POST', '/refunds', { payment_id: created.body.id, amount: { value: '50.00', currency: 'RUB' }, receipt: partialReceipt }, { 'idempotence-key': 'r-1' })).body, partial.body);
  const tooMuch = await api('POST', '/refunds', { payment_id: created.body.id, amount: { value: '200.01', currency: 'RUB' } }, { 'idempotence-key': 'r-2' });
  t.is(tooMuch.status, 400);
  t.deepEqual(Object.keys(tooMuch.body).sort(), ['code', 'description', 'id', 'parameter', 'type']);
  t.like(tooMuch.body, { type: 'error', code: 'invalid_request', parameter: 'amount', description: 'Refund amount exceeds the amount available for refund (200.00 RUB)' });
  t.like((await api('GET', `/payments/${created.body.id}`)).body, { refunded_amount: { value: '50.00', currency: 'RUB' }, refundable: true });
  t.like((await api('GET', `/refunds/${partial.body.id}`)).body, { id: partial.body.id, status: 'succeeded' });
});
