// Stripe Checkout end to end (docs/payments.md, "Stripe"), on SQLite and PostgreSQL: a
// customer starts a top-up in the cabinet over HTTP, pays on the simulated Checkout page over
// plain HTTP, and the simulator's signed webhook credits the account once, converted at the
// configured rate; a cancelled and then expired session credits nothing; a payment whose
// webhook never came is credited by the sweeper; refunds go through Stripe's refund API.
//
// The numbers: 500 RUB at 92.50 RUB/USD is 5.4054… USD, charged 5.41 USD (541 cents, rounded
// up so the credit is not less than asked), credited 541 × 92.50 / 100 = 500.4250 RUB
// (rounded down once to 0.0001 RUB: here exact).
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { balanceUnits, cabinetCall, deliveriesOf, ledgerRows, newCustomer, paymentRow, simulatorApi, startStripeGateway, startTopUp, submitCheckout } from './stripe-helpers.js';

const credited = 5_004_250n; // 500.4250 RUB in units of 0.0001

testOnBackends('a customer pays 500 RUB in USD on the Checkout page: the webhook credits exactly 500.4250 RUB once', async (t, database) => {
  const gateway = await startStripeGateway(t, database);
  const customer = await newCustomer(gateway);

  const topUp = await startTopUp(t, gateway, customer, '500');
  t.like(topUp.body, { object: 'payment', provider: 'stripe', status: 'pending', amount_rub: '500.0000', charged: { amount: '5.41', currency: 'usd' }, rate: '92.50', credited_rub: null, refunded_rub: '0.0000' });
  t.regex(topUp.sessionId, /^cs_test_\w+$/);
  t.is(topUp.checkoutUrl, `${topUp.simulatorOrigin}/stripe/checkout/${topUp.sessionId}`);

  // The hosted page, as the browser gets it: its language, a heading, the amount in dollars, a labelled card field, Pay and Cancel.
  const page = await fetch(topUp.checkoutUrl);
  t.is(page.status, 200);
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await page.text();
  t.regex(html, /<html lang="en">/);
  t.regex(html, /<h1>Balance top-up<\/h1>/);
  t.regex(html, /Total: <span class="amount">5\.41 USD<\/span>/);
  t.regex(html, /<label for="card">Card number<\/label>\s*<input id="card" name="card"/);
  t.regex(html, /<form method="post" action="\/stripe\/checkout\/cs_test_\w+">/);
  t.regex(html, /<button type="submit" name="action" value="pay">Pay 5\.41 USD<\/button>/);
  t.regex(html, /<button type="submit" name="action" value="cancel"/);

  const paid = await submitCheckout(topUp.checkoutUrl, 'pay');
  t.deepEqual([paid.status, paid.location], [303, `${gateway.url}/cabinet/topup?payment=${topUp.paymentId}`]);

  const payment = await eventually(async () => {
    const row = await paymentRow(gateway, topUp.paymentId);
    return row.status === 'succeeded' ? row : undefined;
  }, { what: 'the webhook credited the payment' });
  t.like(payment, { provider: 'stripe', provider_payment_id: topUp.sessionId, currency: 'usd', rate: '92.50', failure: null });
  t.is(BigInt(payment.amount_minor), 541n);
  t.is(BigInt(payment.amount_units), 5_000_000n);
  t.is(BigInt(payment.credited_units), credited);
  t.deepEqual(await ledgerRows(gateway, customer.accountId), [{ kind: 'topup', amount_units: credited, source: `payment:stripe:${topUp.sessionId}` }]);
  t.is(await balanceUnits(gateway, customer.accountId), credited);

  // What reached the gateway: one checkout.session.completed, answered 200 the first time (the gateway commits before it answers: awaited).
  const deliveries = await eventually(async () => {
    const found = await deliveriesOf(topUp.simulatorOrigin, topUp.sessionId);
    return found.every((delivery) => delivery.attempts.length > 0) ? found : undefined;
  }, { what: 'the simulator has the answer to its webhook' });
  t.deepEqual(
    deliveries.map((delivery) => [delivery.type, delivery.url, delivery.held, delivery.delivered, delivery.attempts.map((attempt) => attempt.status)]),
    [['checkout.session.completed', `${gateway.url}/payments/stripe/notifications`, false, true, [200]]],
  );

  // The page the customer returns to reads the same, and asking again changes nothing.
  const read = await cabinetCall(gateway, customer, 'GET', `/cabinet/api/payments/${topUp.paymentId}`);
  t.like(read.body, { status: 'succeeded', credited_rub: '500.4250', charged: { amount: '5.41', currency: 'usd' }, confirmation_url: null });
  t.is(await balanceUnits(gateway, customer.accountId), credited);
  await assertLedgerInvariants(t, gateway.services.db);
});

testOnBackends('Cancel returns to the top-up page with the session still open; an expired session reads cancelled and credits nothing', async (t, database) => {
  const gateway = await startStripeGateway(t, database);
  const customer = await newCustomer(gateway);
  const topUp = await startTopUp(t, gateway, customer, '300');
  t.like(topUp.body, { amount_rub: '300.0000', charged: { amount: '3.25', currency: 'usd' } });

  const cancelled = await submitCheckout(topUp.checkoutUrl, 'cancel');
  t.deepEqual([cancelled.status, cancelled.location], [303, `${gateway.url}/cabinet/topup?payment=${topUp.paymentId}`]);
  const afterCancel = await cabinetCall(gateway, customer, 'GET', `/cabinet/api/payments/${topUp.paymentId}`);
  t.like(afterCancel.body, { status: 'pending', confirmation_url: topUp.checkoutUrl }); // Stripe keeps the session open: the customer may still pay

  // Stripe's own API expires it (as the dashboard or the session's expires_at would): checkout.session.expired reaches the gateway.
  const expired = await simulatorApi(topUp.simulatorOrigin, 'POST', `/v1/checkout/sessions/${topUp.sessionId}/expire`);
  t.like(expired, { status: 200, body: { id: topUp.sessionId, status: 'expired', url: null } });
  const payment = await eventually(async () => {
    const row = await paymentRow(gateway, topUp.paymentId);
    return row.status === 'cancelled' ? row : undefined;
  }, { what: 'checkout.session.expired cancelled the payment' });
  t.is(payment.failure, 'the Checkout Session expired');
  const deliveries = await eventually(async () => {
    const found = await deliveriesOf(topUp.simulatorOrigin, topUp.sessionId);
    return found.every((delivery) => delivery.attempts.length > 0) ? found : undefined;
  }, { what: 'the simulator has the answer to its webhook' });
  t.deepEqual(deliveries.map((delivery) => [delivery.type, delivery.delivered, delivery.attempts.map((attempt) => attempt.status)]), [['checkout.session.expired', true, [200]]]);

  // The page no longer takes the card.
  const page = await (await fetch(topUp.checkoutUrl)).text();
  t.regex(page, /This checkout session has expired/);
  t.notRegex(page, /value="pay"/);
  const latePay = await submitCheckout(topUp.checkoutUrl, 'pay');
  t.is(latePay.status, 200);
  t.like((await cabinetCall(gateway, customer, 'GET', `/cabinet/api/payments/${topUp.paymentId}`)).body, { status: 'cancelled', credited_rub: null });
  t.deepEqual(await ledgerRows(gateway, customer.accountId), []);
  await assertLedgerInvariants(t, gateway.services.db);
});

testOnBackends('a declined card leaves the session open; a payment whose webhook never came is credited by the sweeper, once', async (t, database) => {
  const clock = testClock();
  const gateway = await startStripeGateway(t, database, { now: clock.now });
  const customer = await newCustomer(gateway);
  const topUp = await startTopUp(t, gateway, customer, '500');

  const declined = await submitCheckout(topUp.checkoutUrl, 'pay', { card: '4000 0000 0000 0002' });
  t.is(declined.status, 402);
  t.regex(declined.text, /<p role="alert" class="error">Your card was declined\. Try another card\.<\/p>/);
  t.is((await paymentRow(gateway, topUp.paymentId)).status, 'pending');

  // Paid, but the simulator holds the webhook (as if it were lost).
  const paid = await submitCheckout(topUp.checkoutUrl, 'pay', { notify: 'none' });
  t.is(paid.status, 303);
  t.deepEqual((await deliveriesOf(topUp.simulatorOrigin, topUp.sessionId)).map((delivery) => [delivery.type, delivery.held, delivery.attempts.length]), [['checkout.session.completed', true, 0]]);
  t.is((await paymentRow(gateway, topUp.paymentId)).status, 'pending');

  // Not yet due (payments.sweep_after is 1h in this config), then due.
  await gateway.services.payments!.payments.sweep();
  t.is((await paymentRow(gateway, topUp.paymentId)).status, 'pending');
  clock.advance(61 * 60_000);
  await gateway.services.payments!.payments.sweep();
  const payment = await paymentRow(gateway, topUp.paymentId);
  t.is(payment.status, 'succeeded');
  t.is(BigInt(payment.credited_units), credited);
  await gateway.services.payments!.payments.sweep();
  t.deepEqual(await ledgerRows(gateway, customer.accountId), [{ kind: 'topup', amount_units: credited, source: `payment:stripe:${topUp.sessionId}` }]);
  await assertLedgerInvariants(t, gateway.services.db);
});

testOnBackends('refunds go through Stripe: part, then the rest, each one `refund` row; a refund Stripe refuses gives the money back', async (t, database) => {
  const gateway = await startStripeGateway(t, database);
  const customer = await newCustomer(gateway);
  const { refunds } = gateway.services.payments!;
  const provider = gateway.services.payments!.payments.provider('stripe');

  const payAndCredit = async (amountRub: string) => {
    const topUp = await startTopUp(t, gateway, customer, amountRub);
    t.is((await submitCheckout(topUp.checkoutUrl, 'pay')).status, 303);
    await eventually(async () => (await paymentRow(gateway, topUp.paymentId)).status === 'succeeded', { what: 'the payment is credited' });
    return topUp;
  };

  const first = await payAndCredit('500');
  // 100 RUB of the 500.4250 credited: 100 / 500.4250 of 541 cents = 108 cents (rounded down).
  const part = await refunds.refund({ paymentId: first.paymentId, amountUnits: 1_000_000n, allowSpent: false, actor: 'test', reason: 'asked by the customer' });
  t.like(part, { paymentId: first.paymentId, status: 'succeeded', amountMinor: 108n, shareUnits: 1_000_000n, debitUnits: 1_000_000n });
  t.regex(part.providerRefundId!, /^re_\w+$/);
  t.like(await provider.fetch(first.sessionId), { status: 'succeeded', refundedMinor: 108n });
  const rest = await refunds.refund({ paymentId: first.paymentId, allowSpent: false, actor: 'test', reason: null });
  t.like(rest, { status: 'succeeded', amountMinor: 433n, shareUnits: credited - 1_000_000n, debitUnits: credited - 1_000_000n });
  t.like(await provider.fetch(first.sessionId), { refundedMinor: 541n });
  t.like(await paymentRow(gateway, first.paymentId), { status: 'refunded' });
  t.is(await balanceUnits(gateway, customer.accountId), 0n);

  // Refunded at Stripe already (from its dashboard): the gateway's refund is refused there (400), and the money it took back is returned.
  const second = await payAndCredit('500');
  const { body: paidSession } = await simulatorApi(second.simulatorOrigin, 'GET', `/v1/checkout/sessions/${second.sessionId}`);
  const outside = await simulatorApi(second.simulatorOrigin, 'POST', '/v1/refunds', { payment_intent: paidSession.payment_intent });
  t.like(outside, { status: 200, body: { object: 'refund', amount: 541, status: 'succeeded' } });
  const refused = await refunds.refund({ paymentId: second.paymentId, allowSpent: false, actor: 'test', reason: null });
  t.like(refused, { status: 'failed', providerRefundId: null, amountMinor: 541n, debitUnits: credited });
  t.like(await paymentRow(gateway, second.paymentId), { status: 'succeeded' });
  t.is(BigInt((await paymentRow(gateway, second.paymentId)).refunded_minor), 0n);

  t.deepEqual(await ledgerRows(gateway, customer.accountId), [
    { kind: 'topup', amount_units: credited, source: `payment:stripe:${first.sessionId}` },
    { kind: 'refund', amount_units: -1_000_000n, source: `payment-refund:${part.id}` },
    { kind: 'refund', amount_units: -(credited - 1_000_000n), source: `payment-refund:${rest.id}` },
    { kind: 'topup', amount_units: credited, source: `payment:stripe:${second.sessionId}` },
    { kind: 'refund', amount_units: -credited, source: `payment-refund:${refused.id}` },
    { kind: 'refund', amount_units: credited, source: `payment-refund-failed:${refused.id}` },
  ]);
  t.is(await balanceUnits(gateway, customer.accountId), credited);
  await assertLedgerInvariants(t, gateway.services.db);
});
