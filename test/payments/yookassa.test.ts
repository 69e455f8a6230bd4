// Customers paying with YooKassa (docs/payments.md, "YooKassa"), end to end against the
// simulated YooKassa on its own wire: the top-up started in the cabinet, paid or cancelled on
// the hosted page, the notification (or its absence) and what the ledger then holds. On SQLite
// and PostgreSQL. Money is in units of 0.0001 RUB: 500 RUB = 5_000_000n.
import { randomUUID } from 'node:crypto';
import { paymentSource } from '../../src/payments/credit-sources.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { loginAs } from '../helpers/cabinet.js';
import { eventually } from '../helpers/eventually.js';
import { balanceUnits, completeCheckout, ledgerRows, notificationBody, openShop, postNotification, readPayment, simPayment, startTopUp, yookassaConfig } from './yookassa-flow.js';

const rub500 = 5_000_000n;

testOnBackends('a payment paid on the hosted page is credited once: the amount, one topup row keyed by the payment, succeeded; replays change nothing', async (t, database) => {
  const { gateway, accountId, user, browser, db } = await openShop(t, database);
  const started = await startTopUp(t, gateway.url, browser, '500');
  t.like(started, { object: 'payment', provider: 'yookassa', status: 'pending', amount_rub: '500.0000', charged: { amount: '500.00', currency: 'rub' }, credited_rub: null });
  t.regex(started.confirmation_url, /^http:\/\/127\.0\.0\.1:\d+\/yookassa\/checkout\/[0-9a-f-]{36}$/);
  const providerId: string = started.provider_payment_id;
  t.is(started.confirmation_url.endsWith(providerId), true);

  // What YooKassa was asked: the amount, our id in the metadata, the description in the user's language, a receipt (the user has an email).
  const atYookassa = await simPayment(started.confirmation_url, providerId);
  t.like(atYookassa, { id: providerId, status: 'pending', amount: { value: '500.00', currency: 'RUB' }, description: 'Balance top-up', metadata: { payment_id: started.id }, receipt_registration: 'pending', test: true });
  t.truthy(user.email);

  // The browser pays (the simulator sends its notification twice at once) and comes back to the cabinet.
  const back = await completeCheckout(t, started.confirmation_url, 'pay', 'notify=twice');
  t.is(back, `${gateway.url}/cabinet/topup?payment=${started.id}`);
  await eventually(async () => (await ledgerRows(db, accountId)).length > 0, { what: 'the notification credited the payment' });

  const expected = [{ kind: 'topup', amount: rub500, source: paymentSource('yookassa', providerId) }];
  t.deepEqual(await ledgerRows(db, accountId), expected);
  t.is(await balanceUnits(db, accountId), rub500);
  const read = await readPayment(gateway.url, browser, started.id);
  t.is(read.status, 200);
  t.like(read.body, { id: started.id, status: 'succeeded', credited_rub: '500.0000', confirmation_url: null });
  t.truthy(read.body.paid_at);
  t.like(await simPayment(started.confirmation_url, providerId), { status: 'succeeded', paid: true, receipt_registration: 'succeeded' });

  // 100 copies of the notification at once (replays, as YooKassa retries): still one credit.
  const copies = await Promise.all(Array.from({ length: 100 }, () => postNotification(gateway.url, notificationBody('payment.succeeded', { id: providerId, status: 'succeeded' }))));
  t.deepEqual(new Set(copies.map((copy) => copy.status)), new Set([200]));
  t.deepEqual(await ledgerRows(db, accountId), expected);
  t.is(await balanceUnits(db, accountId), rub500);
  await assertLedgerInvariants(t, db);
});

testOnBackends('100 concurrent copies of the first notification of a payment credit it once', async (t, database) => {
  const { gateway, accountId, browser, db } = await openShop(t, database);
  const started = await startTopUp(t, gateway.url, browser, '1234.56');
  // Paid, and the simulator's own notification lost: the 100 copies race for the first credit.
  await completeCheckout(t, started.confirmation_url, 'pay', 'notify=none');
  t.deepEqual(await ledgerRows(db, accountId), []);
  const body = notificationBody('payment.succeeded', { id: started.provider_payment_id });
  const copies = await Promise.all(Array.from({ length: 100 }, () => postNotification(gateway.url, body)));
  t.deepEqual(new Set(copies.map((copy) => copy.status)), new Set([200]));
  t.deepEqual(await ledgerRows(db, accountId), [{ kind: 'topup', amount: 12_345_600n, source: paymentSource('yookassa', started.provider_payment_id) }]);
  t.is(await balanceUnits(db, accountId), 12_345_600n);
  t.like((await readPayment(gateway.url, browser, started.id)).body, { status: 'succeeded', credited_rub: '1234.5600' });
  await assertLedgerInvariants(t, db);
});

testOnBackends('a payment cancelled on the hosted page credits nothing and reads cancelled, with YooKassa’s reason', async (t, database) => {
  const { gateway, accountId, browser, db } = await openShop(t, database);
  const started = await startTopUp(t, gateway.url, browser, '500');
  await completeCheckout(t, started.confirmation_url, 'cancel', 'reason=insufficient_funds');
  await eventually(async () => (await db('payments').where({ id: started.id }).first()).status === 'cancelled', { what: 'the notification cancelled the payment' });
  const read = await readPayment(gateway.url, browser, started.id);
  t.like(read.body, { status: 'cancelled', credited_rub: null, failure: 'yoo_money: insufficient_funds', confirmation_url: null });
  // A notification claiming success for it now: YooKassa says canceled, so nothing.
  t.is((await postNotification(gateway.url, notificationBody('payment.succeeded', { id: started.provider_payment_id, status: 'succeeded' }))).status, 200);
  t.deepEqual(await ledgerRows(db, accountId), []);
  t.is(await balanceUnits(db, accountId), 0n);
  t.is((await readPayment(gateway.url, browser, started.id)).body.status, 'cancelled');
  await assertLedgerInvariants(t, db);
});

testOnBackends('notifications are never believed: an unknown payment is 404, a forged success of a pending payment credits nothing, a body that is not YooKassa’s is refused', async (t, database) => {
  const { gateway, accountId, browser, db } = await openShop(t, database);
  const started = await startTopUp(t, gateway.url, browser, '500');

  const unknown = await postNotification(gateway.url, notificationBody('payment.succeeded', { id: randomUUID(), status: 'succeeded', paid: true, amount: { value: '100000.00', currency: 'RUB' } }));
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, 'not_found');

  const forged = await postNotification(
    gateway.url,
    notificationBody('payment.succeeded', { id: started.provider_payment_id, status: 'succeeded', paid: true, amount: { value: '500.00', currency: 'RUB' }, metadata: { payment_id: started.id } }),
  );
  t.is(forged.status, 200);
  t.is((await readPayment(gateway.url, browser, started.id)).body.status, 'pending');

  for (const body of ['not json', JSON.stringify({ event: 'payment.succeeded', object: { id: started.provider_payment_id } }), notificationBody('payment.succeeded', { id: '../refunds/x' })]) {
    const refused = await postNotification(gateway.url, body);
    t.is(refused.status, 400, body);
    t.is(refused.body.error.code, 'notification_refused');
  }
  // A refund's event changes no payment: accepted and ignored.
  t.is((await postNotification(gateway.url, notificationBody('refund.succeeded', { id: randomUUID(), payment_id: started.provider_payment_id }))).status, 200);

  t.deepEqual(await ledgerRows(db, accountId), []);
  t.is(await balanceUnits(db, accountId), 0n);
  await assertLedgerInvariants(t, db);
});

testOnBackends('with notification_addresses, a notification from outside the ranges is refused (400 notification_refused) and one from inside is read', async (t, database) => {
  // Behind a trusted proxy (127.0.0.1) the peer is X-Forwarded-For's: the test plays YooKassa's and a stranger's addresses.
  const raw = yookassaConfig({ yookassa: { notification_addresses: ['185.71.76.0/27', '2a02:5180::/32'] }, server: { trusted_proxies: ['127.0.0.1'] } });
  const { gateway, accountId, browser, db } = await openShop(t, database, raw);
  const started = await startTopUp(t, gateway.url, browser, '500');
  await completeCheckout(t, started.confirmation_url, 'pay', 'notify=none');
  const body = notificationBody('payment.succeeded', { id: started.provider_payment_id });

  for (const forwardedFor of [undefined, '203.0.113.9', '185.71.76.32', '2a03::1']) {
    const refused = await postNotification(gateway.url, body, forwardedFor ? { 'x-forwarded-for': forwardedFor } : {});
    t.is(refused.status, 400, `from ${forwardedFor ?? '127.0.0.1'}`);
    t.is(refused.body.error.code, 'notification_refused');
  }
  t.deepEqual(await ledgerRows(db, accountId), []);

  t.is((await postNotification(gateway.url, body, { 'x-forwarded-for': '185.71.76.31' })).status, 200);
  t.deepEqual(await ledgerRows(db, accountId), [{ kind: 'topup', amount: rub500, source: paymentSource('yookassa', started.provider_payment_id) }]);
  t.is((await postNotification(gateway.url, body, { 'x-forwarded-for': '2a02:5180::7' })).status, 200);
  t.is(await balanceUnits(db, accountId), rub500);
  await assertLedgerInvariants(t, db);
});

testOnBackends('a payment whose notification was lost is credited once by the sweeper after sweep_after', async (t, database) => {
  const { gateway, clock, accountId, browser, db } = await openShop(t, database);
  const { payments } = gateway.services.payments!;
  const started = await startTopUp(t, gateway.url, browser, '500');
  await completeCheckout(t, started.confirmation_url, 'pay', 'notify=none');

  t.is(await payments.sweep(), 0, 'not due before sweep_after (1m)');
  clock.advance(59_000);
  t.is(await payments.sweep(), 0);
  t.deepEqual(await ledgerRows(db, accountId), []);
  clock.advance(1_001);
  t.is(await payments.sweep(), 1);
  t.deepEqual(await ledgerRows(db, accountId), [{ kind: 'topup', amount: rub500, source: paymentSource('yookassa', started.provider_payment_id) }]);
  clock.advance(120_000);
  t.is(await payments.sweep(), 0, 'a credited payment is not looked at again');
  t.is(await balanceUnits(db, accountId), rub500);
  t.is((await readPayment(gateway.url, browser, started.id)).body.status, 'succeeded');
  await assertLedgerInvariants(t, db);
});

testOnBackends('the hosted page speaks the customer’s language; a session without a user’s email pays without a receipt', async (t, database) => {
  const { gateway, accountId, browser, db } = await openShop(t, database);
  const russian = await startTopUp(t, gateway.url, browser, '300', { locale: 'ru' });
  const page = await (await fetch(russian.confirmation_url)).text();
  t.regex(page, /<html lang="ru">/);
  t.regex(page, /<h1>Оплата заказа<\/h1>/);
  t.regex(page, /value="pay">Оплатить<\/button>/);
  t.regex(page, /300,00\u00a0₽/);
  t.like(await simPayment(russian.confirmation_url, russian.provider_payment_id), { description: 'Пополнение баланса', receipt_registration: 'pending' });

  // An account's own session (a login link, no user): no email, so no receipt is sent.
  const accountBrowser = await loginAs(gateway.url, gateway.services, { account: accountId });
  const anonymous = await startTopUp(t, gateway.url, accountBrowser, '300');
  const atYookassa = await simPayment(anonymous.confirmation_url, anonymous.provider_payment_id);
  t.is(atYookassa.receipt_registration, undefined);
  await completeCheckout(t, anonymous.confirmation_url, 'pay');
  await eventually(async () => (await db('payments').where({ id: anonymous.id }).first()).status === 'succeeded', { what: 'the payment without a receipt was credited' });
  t.is(await balanceUnits(db, accountId), 3_000_000n);
  await assertLedgerInvariants(t, db);
});

testOnBackends('a payment YooKassa refuses to create is cancelled with its reason, and the sweeper leaves it alone', async (t, database) => {
  // YooKassa takes at least 1 RUB: a configured minimum below it lets the test ask for less.
  const { gateway, clock, accountId, browser, db } = await openShop(t, database, yookassaConfig({ payments: { min_rub: '0.5' } }));
  const response = await fetch(`${gateway.url}/cabinet/api/payments`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'yookassa', amount_rub: '0.50' }),
  });
  t.is(response.status, 502);
  const body = (await response.json()) as Record<string, any>;
  t.is(body.error.code, 'upstream_error');
  t.regex(body.error.message, /yookassa refused to start the payment .*amount\.value must be at least 1\.00 RUB.*; nothing was charged/);
  const [payment] = await db('payments').where({ account_id: accountId });
  t.like(payment, { status: 'cancelled', provider_payment_id: null });
  t.regex(payment.failure, /\(parameter amount\.value\)/);
  clock.advance(3_600_000);
  t.is(await gateway.services.payments!.payments.sweep(), 0);
  t.deepEqual(await ledgerRows(db, accountId), []);
});
