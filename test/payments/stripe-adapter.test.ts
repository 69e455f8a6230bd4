// The Stripe adapter (src/payments/stripe/) against the simulator, without a database: what it
// asks of Stripe and how it reads the answers. A real account's mode (webhook secret from the
// environment, no endpoint registered) and the simulator's (the endpoint registered through the
// API at start, its secret verifying events).
import test, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import type { StripeConfig } from '../../src/config/load.js';
import { NotificationRefusedError, type PaymentProvider, ProviderRefusedError } from '../../src/payments/provider.js';
import { openStripe } from '../../src/payments/stripe/stripe-provider.js';
import { startSimulator } from '../../src/sim/server.js';
import { stripeSignatureHeader } from '../../src/sim/payments/stripe-webhooks.js';
import { simulatorApi, submitCheckout } from './stripe-helpers.js';

const config: StripeConfig = { secretKey: 'sk_test_adapter', secretKeyEnv: 'STRIPE_SECRET_KEY', webhookSecret: 'whsec_from_the_dashboard', webhookSecretEnv: 'STRIPE_WEBHOOK_SECRET', currency: 'usd', rubRate: '92.50', apiUrl: 'sim' };

async function openAdapter(t: ExecutionContext, options: { simulated: boolean; config?: Partial<StripeConfig>; now?: () => number }): Promise<{ provider: PaymentProvider; simulatorOrigin: string }> {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const provider = await openStripe({ ...config, ...options.config }, { apiUrl: `${simulator.url}/stripe`, simulated: options.simulated, logger: pino({ level: 'silent' }), now: options.now ?? Date.now });
  t.teardown(() => provider.close());
  return { provider, simulatorOrigin: simulator.url };
}

const newPayment = (reference: string, amountMinor = 541n) => ({ reference, amountMinor, currency: 'usd', description: 'Balance top-up', email: 'customer@example.test', returnUrl: 'http://gateway.test/cabinet/topup?payment=' + reference, cancelUrl: 'http://gateway.test/cabinet/topup?payment=' + reference, locale: 'ru' as const });

test('create makes one Checkout Session per payment id, with what the customer pays and who they are', async (t) => {
  const { provider, simulatorOrigin } = await openAdapter(t, { simulated: false });
  const first = await provider.create(newPayment('pay_adapter1'));
  const again = await provider.create(newPayment('pay_adapter1'));
  t.is(again.payment.id, first.payment.id, 'the payment id is the idempotency key');
  t.deepEqual(first.payment, { id: first.payment.id, status: 'pending', amountMinor: 541n, currency: 'usd', reference: 'pay_adapter1', refundedMinor: 0n, createdAt: first.payment.createdAt });
  t.is(first.confirmationUrl, `${simulatorOrigin}/stripe/checkout/${first.payment.id}`);
  const { body: session } = await simulatorApi(simulatorOrigin, 'GET', `/v1/checkout/sessions/${first.payment.id}`);
  t.like(session, {
    object: 'checkout.session',
    mode: 'payment',
    status: 'open',
    payment_status: 'unpaid',
    amount_total: 541,
    currency: 'usd',
    client_reference_id: 'pay_adapter1',
    metadata: { payment_id: 'pay_adapter1' },
    customer_email: 'customer@example.test',
    locale: 'ru',
    success_url: 'http://gateway.test/cabinet/topup?payment=pay_adapter1',
    cancel_url: 'http://gateway.test/cabinet/topup?payment=pay_adapter1',
  });
  // The page speaks the session's language.
  const page = await (await fetch(first.confirmationUrl)).text();
  t.regex(page, /<html lang="ru">/);
  t.regex(page, /<h1>Balance top-up<\/h1>/);
  t.regex(page, /Итого: <span class="amount">5\.41 USD<\/span>/);
  t.regex(page, /<button type="submit" name="action" value="pay">Оплатить 5\.41 USD<\/button>/);
  // Without a secret key (a command that opened the services without serving) each call says what is missing.
  const { provider: keyless } = await openAdapter(t, { simulated: false, config: { secretKey: undefined } });
  await t.throwsAsync(keyless.create(newPayment('pay_adapter2')), { message: "payments.stripe.secret_key_env names STRIPE_SECRET_KEY, which is not set in this process's environment" });
});

test('fetch, refund (idempotent by key, refused beyond what is left) and list, as Stripe answers them', async (t) => {
  const { provider } = await openAdapter(t, { simulated: false });
  const { payment, confirmationUrl } = await provider.create(newPayment('pay_adapter3'));
  await t.throwsAsync(provider.refund({ providerPaymentId: payment.id, amountMinor: 100n, currency: 'usd', idempotenceKey: 'pref_unpaid' }), { instanceOf: ProviderRefusedError, message: /has no payment to refund \(open, unpaid\)/ });
  t.is((await submitCheckout(confirmationUrl, 'pay')).status, 303);
  t.like(await provider.fetch(payment.id), { status: 'succeeded', amountMinor: 541n, refundedMinor: 0n, reference: 'pay_adapter3' });

  const refund = await provider.refund({ providerPaymentId: payment.id, amountMinor: 108n, currency: 'usd', idempotenceKey: 'pref_a' });
  t.like(refund, { status: 'succeeded' });
  t.deepEqual(await provider.refund({ providerPaymentId: payment.id, amountMinor: 108n, currency: 'usd', idempotenceKey: 'pref_a' }), refund, 'the same key is the same refund');
  t.deepEqual(await provider.fetchRefund!(refund.id), refund);
  t.like(await provider.fetch(payment.id), { refundedMinor: 108n });
  const refused = await t.throwsAsync(provider.refund({ providerPaymentId: payment.id, amountMinor: 434n, currency: 'usd', idempotenceKey: 'pref_b' }), { instanceOf: ProviderRefusedError });
  t.like(refused, { provider: 'stripe', status: 400, message: 'Refund amount (434 usd) is greater than unrefunded amount on charge (433 usd)' });
  await t.throwsAsync(provider.fetch('cs_test_unknown'), { message: "No such checkout.session: 'cs_test_unknown'" });

  // list(since) pages through every session made since then (Stripe's pages are at most 100).
  const since = payment.createdAt; // the first session's second: list takes `created >= since` in whole seconds
  for (let index = 0; index < 101; index++) await provider.create(newPayment(`pay_listed${index}`, 100n + BigInt(index)));
  const listed = [];
  for await (const item of provider.list(since)) listed.push(item);
  t.is(listed.length, 102);
  t.is(new Set(listed.map((item) => item.reference)).size, 102);
  t.like(listed.find((item) => item.id === payment.id), { status: 'succeeded', refundedMinor: 108n });
  const future = [];
  for await (const item of provider.list(Date.now() + 10_000)) future.push(item);
  t.deepEqual(future, []);
});

test("with a real account's settings: events verify with the dashboard's secret and the gateway's clock; only a session's events name a payment", async (t) => {
  let now = 1_800_000_000_000;
  const { provider, simulatorOrigin } = await openAdapter(t, { simulated: false, now: () => now });
  await provider.start!('http://gateway.test/payments/stripe/notifications');
  t.deepEqual((await simulatorApi(simulatorOrigin, 'GET', '/v1/webhook_endpoints')).body.data, [], 'a real account’s endpoint is made in its dashboard, not at start');

  const secret = config.webhookSecret!;
  const event = (type: string, object: Record<string, unknown>) => JSON.stringify({ id: 'evt_1', object: 'event', type, data: { object } });
  const read = (payload: string, signature: string | undefined) => provider.readNotification({ headers: signature === undefined ? {} : { 'stripe-signature': signature }, rawBody: Buffer.from(payload), remoteAddress: '127.0.0.1' });
  const signedNow = (payload: string, key = secret) => stripeSignatureHeader(payload, key, Math.floor(now / 1000));

  for (const type of ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed', 'checkout.session.expired']) {
    const payload = event(type, { id: 'cs_test_42', object: 'checkout.session' });
    t.deepEqual(await read(payload, signedNow(payload)), { providerPaymentId: 'cs_test_42' }, type);
  }
  const other = event('charge.refunded', { id: 'ch_1', object: 'charge' });
  t.is(await read(other, signedNow(other)), null);

  const payload = event('checkout.session.completed', { id: 'cs_test_42', object: 'checkout.session' });
  const signature = signedNow(payload);
  await t.throwsAsync(read(payload, signedNow(payload, 'whsec_other')), { instanceOf: NotificationRefusedError, message: /^the Stripe event does not verify: No signatures found matching the expected signature for payload\./ });
  await t.throwsAsync(read(payload, undefined), { instanceOf: NotificationRefusedError, message: 'the request has no Stripe-Signature header' });
  await t.throwsAsync(read('not json', signedNow('not json')), { instanceOf: NotificationRefusedError, message: /^the Stripe event does not verify/ });
  now += 300_000;
  t.deepEqual(await read(payload, signature), { providerPaymentId: 'cs_test_42' }, '5 minutes old: within the tolerance');
  now += 1000;
  await t.throwsAsync(read(payload, signature), { instanceOf: NotificationRefusedError, message: 'the Stripe event does not verify: Timestamp outside the tolerance zone' });

  const { provider: noSecret } = await openAdapter(t, { simulated: false, config: { webhookSecret: undefined } });
  await t.throwsAsync(noSecret.readNotification({ headers: { 'stripe-signature': signature }, rawBody: Buffer.from(payload), remoteAddress: undefined }), {
    instanceOf: NotificationRefusedError,
    message: 'payments.stripe.webhook_secret_env names STRIPE_WEBHOOK_SECRET, which is not set: no Stripe event can be verified',
  });
});

test('with the simulator: start registers the endpoint through the API, and only its secret verifies', async (t) => {
  const { provider, simulatorOrigin } = await openAdapter(t, { simulated: true, config: { secretKey: undefined, webhookSecret: undefined } });
  const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed', data: { object: { id: 'cs_test_1', object: 'checkout.session' } } });
  const signature = stripeSignatureHeader(payload, 'whsec_anything', Math.floor(Date.now() / 1000));
  await t.throwsAsync(provider.readNotification({ headers: { 'stripe-signature': signature }, rawBody: Buffer.from(payload), remoteAddress: undefined }), { message: 'no webhook endpoint is registered with the Stripe simulator yet' });

  await provider.start!('http://127.0.0.1:9/payments/stripe/notifications');
  const endpoints = (await simulatorApi(simulatorOrigin, 'GET', '/v1/webhook_endpoints')).body.data;
  t.like(endpoints, [
    { object: 'webhook_endpoint', url: 'http://127.0.0.1:9/payments/stripe/notifications', enabled_events: ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed', 'checkout.session.expired'], status: 'enabled' },
  ]);
  t.is(endpoints[0].secret, undefined, 'the secret is answered once, at creation');
  await t.throwsAsync(provider.readNotification({ headers: { 'stripe-signature': signature }, rawBody: Buffer.from(payload), remoteAddress: undefined }), { instanceOf: NotificationRefusedError });

  // A session paid with its event held: the simulator's signature is the one the adapter accepts.
  const { payment, confirmationUrl } = await provider.create(newPayment('pay_adapter4'));
  await submitCheckout(confirmationUrl, 'pay', { notify: 'none' });
  const [held] = (await simulatorApi(simulatorOrigin, 'GET', `/__sim/deliveries?session=${payment.id}`)).body.data;
  t.deepEqual(await provider.readNotification({ headers: { 'stripe-signature': held.signature }, rawBody: Buffer.from(held.payload), remoteAddress: undefined }), { providerPaymentId: payment.id });
});
