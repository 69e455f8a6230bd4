// The simulated Stripe on its wire (src/sim/payments/stripe*.ts), over raw HTTP where the
// package would hide what is checked: the secret key, Stripe's error shape, idempotency keys,
// list pages, expansion, refunds, and webhooks retried until the endpoint answers 2xx, each
// attempt signed afresh (verified with the `stripe` package's own check).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import Stripe from 'stripe';
import { startSimulator } from '../../src/sim/server.js';
import { eventually } from '../helpers/eventually.js';
import { simulatorApi, submitCheckout } from './stripe-helpers.js';

async function simulator(t: ExecutionContext): Promise<string> {
  const started = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => started.close());
  return started.url;
}

const sessionForm = (extra: Record<string, string> = {}) => ({
  mode: 'payment',
  'line_items[0][quantity]': '1',
  'line_items[0][price_data][currency]': 'eur',
  'line_items[0][price_data][unit_amount]': '1234',
  'line_items[0][price_data][product_data][name]': 'Balance top-up',
  success_url: 'http://shop.test/done',
  cancel_url: 'http://shop.test/back',
  ...extra,
});

async function raw(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

test('the API wants a secret key and answers errors in Stripe’s shape', async (t) => {
  const origin = await simulator(t);
  const missing = await raw(`${origin}/stripe/v1/checkout/sessions`);
  t.is(missing.status, 401);
  t.is(missing.body.error.type, 'invalid_request_error');
  t.regex(missing.body.error.message, /^You did not provide an API key/);
  t.like(await raw(`${origin}/stripe/v1/checkout/sessions`, { headers: { authorization: 'Bearer pk_test_publishable' } }), { status: 401, body: { error: { code: 'api_key_invalid', message: 'Invalid API Key provided: pk_test_****' } } });
  t.like(await simulatorApi(origin, 'GET', '/v1/customers'), { status: 404, body: { error: { type: 'invalid_request_error', message: 'Unrecognized request URL (GET: /v1/customers).' } } });
  t.like(await simulatorApi(origin, 'GET', '/v1/checkout/sessions/cs_test_nope'), { status: 404, body: { error: { code: 'resource_missing', param: 'session', message: "No such checkout.session: 'cs_test_nope'" } } });
  t.like(await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm({ mode: '' })), { status: 400, body: { error: { code: 'parameter_missing', param: 'mode', message: 'Missing required param: mode.' } } });
  t.like(await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm({ 'line_items[0][price_data][unit_amount]': '12.5' })), { status: 400, body: { error: { code: 'parameter_invalid_integer', param: 'line_items[0][price_data][unit_amount]' } } });
  t.like(await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm({ amount: '5' })), { status: 400, body: { error: { code: 'parameter_unknown', param: 'amount', message: 'Received unknown parameter: amount' } } });
  t.like(await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm({ 'metadata[a]': '1', 'metadata[a][b]': '2' })), { status: 400, body: { error: { type: 'invalid_request_error', param: 'metadata[a][b]' } } });
  t.like(await raw(`${origin}/stripe/checkout/cs_test_nope`), { status: 404, body: { error: { code: 'resource_missing' } } });
});

test('an Idempotency-Key answers its first answer again, and refuses other parameters', async (t) => {
  const origin = await simulator(t);
  const post = (key: string, form: Record<string, string>) =>
    raw(`${origin}/stripe/v1/checkout/sessions`, { method: 'POST', headers: { authorization: 'Bearer sk_test_x', 'idempotency-key': key, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  const first = await post('key-1', sessionForm());
  t.is(first.status, 200);
  t.is(first.headers.get('idempotent-replayed'), null);
  const replay = await post('key-1', sessionForm());
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, first.body);
  const other = await post('key-1', sessionForm({ 'line_items[0][price_data][unit_amount]': '999' }));
  t.is(other.status, 400);
  t.is(other.body.error.type, 'idempotency_error');
  t.regex(other.body.error.message, /^Keys for idempotent requests can only be used with the same parameters they were first used with\. Try using a key other than 'key-1'/);
  // A request refused for its parameters is not kept: the key may then be used with good ones.
  t.is((await post('key-2', sessionForm({ mode: 'subscription' }))).status, 400);
  t.is((await post('key-2', sessionForm())).status, 200);
  t.not((await post('key-3', sessionForm())).body.id, first.body.id);
});

test('lists are newest first, paged by limit, starting_after and ending_before, filtered by created', async (t) => {
  const origin = await simulator(t);
  const ids: string[] = [];
  for (let index = 0; index < 5; index++) ids.unshift((await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm())).body.id);
  const page1 = (await simulatorApi(origin, 'GET', '/v1/checkout/sessions?limit=2')).body;
  t.like(page1, { object: 'list', has_more: true, url: '/v1/checkout/sessions' });
  t.deepEqual(page1.data.map((session: any) => session.id), ids.slice(0, 2));
  const page3 = (await simulatorApi(origin, 'GET', `/v1/checkout/sessions?limit=2&starting_after=${ids[3]}`)).body;
  t.deepEqual([page3.data.map((session: any) => session.id), page3.has_more], [[ids[4]], false]);
  const before = (await simulatorApi(origin, 'GET', `/v1/checkout/sessions?limit=2&ending_before=${ids[4]}`)).body;
  t.deepEqual([before.data.map((session: any) => session.id), before.has_more], [ids.slice(2, 4), true]);
  const all = (await simulatorApi(origin, 'GET', '/v1/checkout/sessions')).body.data as { id: string; created: number }[];
  t.deepEqual(all.map((session) => session.id), ids);
  const [newest, oldest] = [all[0]!.created, all[4]!.created];
  t.deepEqual((await simulatorApi(origin, 'GET', `/v1/checkout/sessions?created[gte]=${oldest}&created[lte]=${newest}`)).body.data.map((session: any) => session.id), ids);
  t.deepEqual((await simulatorApi(origin, 'GET', `/v1/checkout/sessions?created[gt]=${newest}`)).body.data, []);
  t.deepEqual((await simulatorApi(origin, 'GET', `/v1/checkout/sessions?created[lt]=${oldest}`)).body.data, []);
  t.like(await simulatorApi(origin, 'GET', '/v1/checkout/sessions?limit=101'), { status: 400, body: { error: { param: 'limit' } } });
  t.like(await simulatorApi(origin, 'GET', '/v1/checkout/sessions?starting_after=cs_test_other'), { status: 400, body: { error: { param: 'starting_after' } } });
});

test('a paid session has a PaymentIntent and a Charge; expand[] replaces their ids; refunds stop at what was paid', async (t) => {
  const origin = await simulator(t);
  const session = (await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm({ 'payment_intent_data[metadata][payment_id]': 'pay_9' }))).body;
  t.like(session, { status: 'open', payment_status: 'unpaid', payment_intent: null, amount_total: 1234, currency: 'eur', url: `${origin}/stripe/checkout/${session.id}` });
  t.like((await simulatorApi(origin, 'GET', `/v1/checkout/sessions/${session.id}?expand[0]=payment_intent.latest_charge`)).body, { payment_intent: null });

  t.deepEqual(await submitCheckout(session.url, 'pay'), { status: 303, location: 'http://shop.test/done', text: '' });
  t.deepEqual(await submitCheckout(session.url, 'pay'), { status: 303, location: 'http://shop.test/done', text: '' }, 'paying a paid session again changes nothing');
  const paid = (await simulatorApi(origin, 'GET', `/v1/checkout/sessions/${session.id}?expand[0]=payment_intent.latest_charge`)).body;
  t.like(paid, { status: 'complete', payment_status: 'paid', url: null, payment_intent: { object: 'payment_intent', status: 'succeeded', amount: 1234, metadata: { payment_id: 'pay_9' }, latest_charge: { object: 'charge', amount: 1234, amount_refunded: 0, refunded: false } } });
  const intent = paid.payment_intent.id as string;
  t.like((await simulatorApi(origin, 'GET', `/v1/payment_intents/${intent}`)).body, { id: intent, latest_charge: paid.payment_intent.latest_charge.id });
  t.like(await simulatorApi(origin, 'GET', `/v1/checkout/sessions/${session.id}?expand[0]=success_url`), { status: 400, body: { error: { param: 'expand', message: 'This property cannot be expanded (success_url).' } } });
  t.like((await simulatorApi(origin, 'GET', `/v1/checkout/sessions?expand[0]=data.payment_intent`)).body, { data: [{ payment_intent: { id: intent } }] });

  t.like(await simulatorApi(origin, 'POST', '/v1/refunds', { payment_intent: intent, amount: '1000' }), { status: 200, body: { object: 'refund', amount: 1000, status: 'succeeded', payment_intent: intent } });
  t.like(await simulatorApi(origin, 'POST', '/v1/refunds', { payment_intent: intent, amount: '235' }), { status: 400, body: { error: { code: 'amount_too_large', message: 'Refund amount (235 eur) is greater than unrefunded amount on charge (234 eur)' } } });
  t.like(await simulatorApi(origin, 'POST', '/v1/refunds', { payment_intent: intent }), { status: 200, body: { amount: 234 } });
  t.like(await simulatorApi(origin, 'POST', '/v1/refunds', { payment_intent: intent }), { status: 400, body: { error: { code: 'charge_already_refunded' } } });
  t.like(await simulatorApi(origin, 'POST', '/v1/refunds', {}), { status: 400, body: { error: { code: 'parameter_missing' } } });
  t.deepEqual((await simulatorApi(origin, 'GET', `/v1/refunds?payment_intent=${intent}`)).body.data.map((refund: any) => refund.amount), [234, 1000]);
  t.like((await simulatorApi(origin, 'GET', `/v1/charges/${paid.payment_intent.latest_charge.id}`)).body, { amount_refunded: 1234, refunded: true });
});

test('webhooks go to each endpoint that enabled the event, signed, and are tried again until answered 2xx', async (t) => {
  const origin = await simulator(t);
  const received: { body: string; signature: string }[] = [];
  let answers = [500, 503]; // the endpoint fails twice, then accepts
  const endpointServer = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(request.headers['stripe-signature']) });
      response.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => endpointServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => endpointServer.close(() => resolve())));
  const url = `http://127.0.0.1:${(endpointServer.address() as AddressInfo).port}/hook`;

  const created = await simulatorApi(origin, 'POST', '/v1/webhook_endpoints', { url, 'enabled_events[0]': 'checkout.session.completed' });
  t.like(created, { status: 200, body: { object: 'webhook_endpoint', url, enabled_events: ['checkout.session.completed'], status: 'enabled' } });
  const secret = created.body.secret as string;
  const quiet = await simulatorApi(origin, 'POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/never', 'enabled_events[0]': 'charge.refunded' });

  const session = (await simulatorApi(origin, 'POST', '/v1/checkout/sessions', sessionForm())).body;
  await submitCheckout(session.url, 'pay');
  // The simulator's retry delays (250 ms, then 1 s) are real time: awaited, not slept through.
  await eventually(() => received.length === 3, { what: 'the third attempt' });
  t.is(new Set(received.map((attempt) => attempt.body)).size, 1, 'each attempt sends the same event');
  for (const attempt of received) {
    const event = Stripe.webhooks.constructEvent(attempt.body, attempt.signature, secret);
    t.like(event, { object: 'event', type: 'checkout.session.completed', data: { object: { id: session.id, status: 'complete', payment_status: 'paid' } } });
  }
  const deliveries = (await simulatorApi(origin, 'GET', `/__sim/deliveries?session=${session.id}`)).body.data;
  t.like(deliveries, [{ type: 'checkout.session.completed', url, delivered: true, held: false }]);
  t.deepEqual(deliveries[0].attempts.map((attempt: any) => attempt.status), [500, 503, 200]);
  t.is(deliveries.length, 1, 'the endpoint that did not enable checkout.session.completed got nothing');

  t.like(await simulatorApi(origin, 'GET', `/v1/webhook_endpoints/${quiet.body.id}`), { status: 200, body: { url: 'http://127.0.0.1:9/never', secret: undefined } });
  t.like(await simulatorApi(origin, 'DELETE' as 'GET', `/v1/webhook_endpoints/${quiet.body.id}`), { status: 200, body: { deleted: true } });
  t.deepEqual((await simulatorApi(origin, 'GET', '/v1/webhook_endpoints')).body.data.map((endpoint: any) => endpoint.url), [url]);
});
