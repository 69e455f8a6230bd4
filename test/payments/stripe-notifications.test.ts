// Stripe webhooks at POST /payments/stripe/notifications (docs/payments.md, "Stripe"), on
// SQLite and PostgreSQL. The payment is paid at the simulator with its webhook held
// (`?notify=none`), so what the gateway does with each notification is the only thing that can
// credit it: a wrong signature, a body that is not the signed one, no signature, and a valid
// event replayed after the tolerance of the package's check are refused 400
// notification_refused and credit nothing; 20 concurrent copies of the valid event credit once.
import { stripeSignatureHeader } from '../../src/sim/payments/stripe-webhooks.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { deliveriesOf, ledgerRows, newCustomer, paymentRow, postNotification, startStripeGateway, startTopUp, submitCheckout } from './stripe-helpers.js';

const credited = 5_004_250n; // 500 RUB asked, 541 cents charged at 92.50 RUB/USD

testOnBackends('a wrong, missing or stale Stripe-Signature is refused 400 notification_refused and credits nothing', async (t, database) => {
  const clock = testClock();
  const gateway = await startStripeGateway(t, database, { now: clock.now });
  const customer = await newCustomer(gateway);
  const topUp = await startTopUp(t, gateway, customer, '500');
  t.is((await submitCheckout(topUp.checkoutUrl, 'pay', { notify: 'none' })).status, 303);
  const [held] = await deliveriesOf(topUp.simulatorOrigin, topUp.sessionId);
  t.like(held, { type: 'checkout.session.completed', held: true, delivered: false });
  const event = JSON.parse(held!.payload);
  t.like(event, { object: 'event', type: 'checkout.session.completed', data: { object: { id: topUp.sessionId, object: 'checkout.session', status: 'complete', payment_status: 'paid', amount_total: 541, currency: 'usd' } } });
  const timestamp = Number(/^t=(\d+),/.exec(held!.signature)![1]);

  const refusals: [string, string, string | undefined][] = [
    ['the signature changed', held!.payload, held!.signature.replace(/v1=([0-9a-f])/, (_match, first: string) => `v1=${first === '0' ? '1' : '0'}`)],
    ['signed with another secret', held!.payload, stripeSignatureHeader(held!.payload, 'whsec_not_the_endpoints_secret', timestamp)],
    ['the body changed after signing', held!.payload.replace('"amount_total": 541', '"amount_total": 99999'), held!.signature],
    ['no signature', held!.payload, undefined],
    ['no v1 signature', held!.payload, `t=${timestamp}`],
  ];
  for (const [what, payload, signature] of refusals) {
    const answer = await postNotification(gateway, payload, signature);
    t.is(answer.status, 400, what);
    t.like(answer.body, { error: { code: 'notification_refused', type: 'invalid_request_error' } }, what);
  }
  t.regex((await postNotification(gateway, held!.payload, undefined)).body.error.message, /no Stripe-Signature header/);

  // The valid event replayed more than 5 minutes (the package's default tolerance) after it was signed.
  clock.advance(10 * 60_000);
  const stale = await postNotification(gateway, held!.payload, held!.signature);
  t.is(stale.status, 400);
  t.like(stale.body, { error: { code: 'notification_refused', message: 'the Stripe event does not verify: Timestamp outside the tolerance zone' } });

  t.like(await paymentRow(gateway, topUp.paymentId), { status: 'pending', credited_units: null });
  t.deepEqual(await ledgerRows(gateway, customer.accountId), []);
  await assertLedgerInvariants(t, gateway.services.db);
});

testOnBackends('20 concurrent copies of a valid signed checkout.session.completed credit once', async (t, database) => {
  const gateway = await startStripeGateway(t, database);
  const customer = await newCustomer(gateway);
  const topUp = await startTopUp(t, gateway, customer, '500');
  t.is((await submitCheckout(topUp.checkoutUrl, 'pay', { notify: 'none' })).status, 303);
  const [held] = await deliveriesOf(topUp.simulatorOrigin, topUp.sessionId);
  t.is((await paymentRow(gateway, topUp.paymentId)).status, 'pending');

  const answers = await Promise.all(Array.from({ length: 20 }, () => postNotification(gateway, held!.payload, held!.signature)));
  t.deepEqual(
    answers.map((answer) => [answer.status, answer.body]),
    answers.map(() => [200, { received: true }]),
  );
  const payment = await paymentRow(gateway, topUp.paymentId);
  t.is(payment.status, 'succeeded');
  t.is(BigInt(payment.credited_units), credited);
  t.deepEqual(await ledgerRows(gateway, customer.accountId), [{ kind: 'topup', amount_units: credited, source: `payment:stripe:${topUp.sessionId}` }]);
  await assertLedgerInvariants(t, gateway.services.db);
});
