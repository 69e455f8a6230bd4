// The pure parts of the Stripe adapter and simulator: Stripe's bracket-notation form read back,
// an api_url taken apart for the package (and its path put in front of the package's), a
// Checkout Session and a Refund as the gateway sees them, the events that name a payment, and
// the simulator's signature verified by the package's own check.
import test from 'ava';
import Stripe from 'stripe';
import { chargeMinorOf, creditUnitsOf } from '../../src/payments/currency.js';
import { stripeAddress, withBasePath } from '../../src/payments/stripe/stripe-address.js';
import { paymentOfSession, refundOf, sessionIdOfEvent } from '../../src/payments/stripe/stripe-objects.js';
import { decodeStripeForm, FormError, keySegments } from '../../src/sim/payments/stripe-form.js';
import { stripeSignatureHeader } from '../../src/sim/payments/stripe-webhooks.js';

test('the form decoder reads what the stripe package writes: nested objects, numbered arrays, `[]`', (t) => {
  const body =
    'mode=payment&line_items[0][quantity]=1&line_items[0][price_data][currency]=usd&line_items[0][price_data][unit_amount]=541' +
    '&line_items[0][price_data][product_data][name]=Balance%20top-up&metadata[payment_id]=pay_1&expand[0]=payment_intent&expand[1]=payment_intent.latest_charge&created[gte]=1700000000&tags[]=a&tags[]=b';
  t.deepEqual(JSON.parse(JSON.stringify(decodeStripeForm(body))), {
    mode: 'payment',
    line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '541', product_data: { name: 'Balance top-up' } } }],
    metadata: { payment_id: 'pay_1' },
    expand: ['payment_intent', 'payment_intent.latest_charge'],
    created: { gte: '1700000000' },
    tags: ['a', 'b'],
  });
  // Encoded brackets (what a form-urlencoder that escapes them sends) read the same.
  t.deepEqual(JSON.parse(JSON.stringify(decodeStripeForm('metadata%5Bpayment_id%5D=pay_2'))), { metadata: { payment_id: 'pay_2' } });
  // Numbered keys out of order are put in order; a gap leaves an object (Stripe would refuse it where an array is due).
  t.deepEqual(JSON.parse(JSON.stringify(decodeStripeForm('a[1]=y&a[0]=x&b[0]=p&b[2]=q'))), { a: ['x', 'y'], b: { 0: 'p', 2: 'q' } });
  t.deepEqual(keySegments('a[b][0][]'), ['a', 'b', '0', '']);
  t.is(keySegments('a[b'), undefined);
});

test('the form decoder refuses what it cannot place, and never reaches a prototype', (t) => {
  for (const body of ['a=1&a[b]=2', 'a[b]=2&a=1', 'a=1&a=2', '__proto__[polluted]=1', 'a[constructor][prototype]=1', 'a[b=1', '[x]=1']) {
    t.throws(() => decodeStripeForm(body), { instanceOf: FormError }, body);
  }
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

test('api_url is taken apart for the package: host, port, protocol, and the path it cannot take', (t) => {
  t.deepEqual(stripeAddress('https://api.stripe.com'), { host: 'api.stripe.com', port: '443', protocol: 'https', basePath: '' });
  t.deepEqual(stripeAddress('http://127.0.0.1:4010/stripe/'), { host: '127.0.0.1', port: '4010', protocol: 'http', basePath: '/stripe' });
  t.deepEqual(stripeAddress('http://[::1]:8080/proxy/stripe'), { host: '::1', port: '8080', protocol: 'http', basePath: '/proxy/stripe' });
  t.throws(() => stripeAddress('ftp://example.com'), { message: /must be http\(s\)/ });
  t.throws(() => stripeAddress('https://example.com/?a=1'), { message: /no query/ });
});

test('withBasePath puts the path in front of every path the package asks for, and changes nothing else', async (t) => {
  const calls: unknown[][] = [];
  const inner: Stripe.HttpClient = {
    getClientName: () => 'inner',
    makeRequest: async (...args) => {
      calls.push(args);
      return {} as Stripe.HttpClientResponse;
    },
  };
  t.is(withBasePath(inner, ''), inner);
  const client = withBasePath(inner, '/stripe');
  t.is(client.getClientName(), 'inner');
  await client.makeRequest('127.0.0.1', '4010', '/v1/checkout/sessions?limit=3', 'GET', { a: 'b' }, '', 'http', 1000);
  t.deepEqual(calls, [['127.0.0.1', '4010', '/stripe/v1/checkout/sessions?limit=3', 'GET', { a: 'b' }, '', 'http', 1000]]);
});

const session = (fields: Record<string, unknown>) =>
  ({ id: 'cs_test_1', object: 'checkout.session', amount_total: 541, currency: 'usd', created: 1_700_000_000, metadata: { payment_id: 'pay_1' }, client_reference_id: 'pay_1', payment_intent: null, ...fields }) as unknown as Stripe.Checkout.Session;

test('a Checkout Session as the gateway sees its payment', (t) => {
  t.deepEqual(paymentOfSession(session({ status: 'open', payment_status: 'unpaid' })), { id: 'cs_test_1', status: 'pending', amountMinor: 541n, currency: 'usd', reference: 'pay_1', refundedMinor: 0n, createdAt: 1_700_000_000_000 });
  t.is(paymentOfSession(session({ status: 'complete', payment_status: 'paid' })).status, 'succeeded');
  t.is(paymentOfSession(session({ status: 'complete', payment_status: 'no_payment_required' })).status, 'succeeded');
  // A delayed method (a bank debit) completes the session before the money arrives: still pending.
  t.is(paymentOfSession(session({ status: 'complete', payment_status: 'unpaid', payment_intent: { id: 'pi_1', status: 'processing', latest_charge: null } })).status, 'pending');
  t.like(paymentOfSession(session({ status: 'complete', payment_status: 'unpaid', payment_intent: { id: 'pi_1', status: 'requires_payment_method', last_payment_error: { message: 'The bank declined the debit.' }, latest_charge: null } })), {
    status: 'cancelled',
    failure: 'The bank declined the debit.',
  });
  t.like(paymentOfSession(session({ status: 'expired', payment_status: 'unpaid' })), { status: 'cancelled', failure: 'the Checkout Session expired' });
  // Refunded: read from the expanded PaymentIntent's Charge; a session without our metadata names its reference by client_reference_id, or nothing.
  const refunded = session({ status: 'complete', payment_status: 'paid', metadata: {}, payment_intent: { id: 'pi_1', status: 'succeeded', latest_charge: { id: 'ch_1', amount_refunded: 108 } } });
  t.like(paymentOfSession(refunded), { status: 'succeeded', refundedMinor: 108n, reference: 'pay_1' });
  t.is(paymentOfSession(session({ status: 'open', payment_status: 'unpaid', metadata: {}, client_reference_id: null })).reference, null);
  t.is(paymentOfSession(session({ status: 'open', payment_status: 'unpaid', currency: 'JPY', amount_total: 500 })).currency, 'jpy');
});

test('a Refund’s state, and the events that name a payment', (t) => {
  const states = ['succeeded', 'pending', 'requires_action', 'failed', 'canceled', null].map((status) => refundOf({ id: 're_1', status } as Stripe.Refund).status);
  t.deepEqual(states, ['succeeded', 'pending', 'pending', 'failed', 'failed', 'pending']);
  const about = { object: 'checkout.session', id: 'cs_test_1' };
  for (const type of ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed', 'checkout.session.expired']) {
    t.is(sessionIdOfEvent({ type, data: { object: about } }), 'cs_test_1', type);
  }
  t.is(sessionIdOfEvent({ type: 'charge.refunded', data: { object: { object: 'charge', id: 'ch_1' } } }), null);
  t.is(sessionIdOfEvent({ type: 'checkout.session.completed', data: { object: { object: 'payment_intent', id: 'pi_1' } } }), null);
  t.is(sessionIdOfEvent({ type: 'checkout.session.completed' }), null);
});

test('the simulator signs as Stripe does: the package’s own check accepts it, within its tolerance only', (t) => {
  const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed', data: { object: { id: 'cs_test_1', object: 'checkout.session' } } });
  const secret = 'whsec_0123456789abcdef';
  const signedAt = 1_800_000_000;
  const header = stripeSignatureHeader(payload, secret, signedAt);
  t.regex(header, /^t=1800000000,v1=[0-9a-f]{64}$/);
  t.is(header, Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: signedAt }));
  t.like(Stripe.webhooks.constructEvent(payload, header, secret, undefined, undefined, (signedAt + 300) * 1000), { id: 'evt_1' });
  t.throws(() => Stripe.webhooks.constructEvent(payload, header, secret, undefined, undefined, (signedAt + 301) * 1000), { message: 'Timestamp outside the tolerance zone' });
  t.throws(() => Stripe.webhooks.constructEvent(payload, header, 'whsec_other', undefined, undefined, signedAt * 1000), { message: /No signatures found matching the expected signature/ });
});

test('the example of docs/payments.md: 500 RUB at 92.50 RUB/USD is charged 541 cents and credited 500.4250 RUB', (t) => {
  t.is(chargeMinorOf(5_000_000n, 'usd', '92.50'), 541n);
  t.is(creditUnitsOf(541n, 'usd', '92.50'), 5_004_250n);
  // A rate with more decimals rounds the credit down once: 541 cents at 92.123456 RUB is 498.38789… RUB, credited 498.3878.
  t.is(creditUnitsOf(541n, 'usd', '92.123456'), 4_983_878n);
  // A currency without a minor unit: 500 RUB at 0.61 RUB/JPY is 820 yen (819.67… rounded up), credited 500.2000 RUB.
  t.is(chargeMinorOf(5_000_000n, 'jpy', '0.61'), 820n);
  t.is(creditUnitsOf(820n, 'jpy', '0.61'), 5_002_000n);
});
