// Refunds of YooKassa payments (docs/payments.md, "Refunds"), as the console and the admin API
// make them (services.payments.refunds), against the simulated YooKassa: whole and partial
// refunds, and money already spent. On SQLite and PostgreSQL; 500 RUB = 5_000_000n units.
import { paymentRefundSource, paymentSource } from '../../src/payments/credit-sources.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { balanceUnits, ledgerRows, openShop, paidPayment, readPayment, simPayment } from './yookassa-flow.js';

const rub500 = 5_000_000n;

testOnBackends('a refund goes to YooKassa and takes the money back as its own refund row; the payment reads refunded', async (t, database) => {
  const shop = await openShop(t, database);
  const { gateway, accountId, browser, db } = shop;
  const started = await paidPayment(t, shop, '500');
  const refund = await gateway.services.payments!.refunds.refund({ paymentId: started.id, allowSpent: false, actor: 'test:operator', reason: 'asked by the customer' });
  t.like(refund, { paymentId: started.id, status: 'succeeded', amountMinor: 50_000n, shareUnits: rub500, debitUnits: rub500 });
  t.truthy(refund.providerRefundId);
  t.deepEqual(await ledgerRows(db, accountId), [
    { kind: 'topup', amount: rub500, source: paymentSource('yookassa', started.provider_payment_id) },
    { kind: 'refund', amount: -rub500, source: paymentRefundSource(refund.id) },
  ]);
  t.is(await balanceUnits(db, accountId), 0n);
  t.like((await readPayment(gateway.url, browser, started.id)).body, { status: 'refunded', refunded_rub: '500.0000' });
  t.like(await simPayment(started.confirmation_url, started.provider_payment_id), { status: 'succeeded', refunded_amount: { value: '500.00', currency: 'RUB' }, refundable: false });
  await assertLedgerInvariants(t, db);
});

testOnBackends('a partial refund of a payment with a receipt carries the refund receipt YooKassa asks for; the rest stays', async (t, database) => {
  const shop = await openShop(t, database);
  const { gateway, accountId, browser, db } = shop;
  const started = await paidPayment(t, shop, '500');
  const refund = await gateway.services.payments!.refunds.refund({ paymentId: started.id, amountUnits: 1_000_000n, allowSpent: false, actor: 'test:operator', reason: null });
  t.like(refund, { status: 'succeeded', amountMinor: 10_000n, debitUnits: 1_000_000n });
  t.is(await balanceUnits(db, accountId), 4_000_000n);
  t.like((await readPayment(gateway.url, browser, started.id)).body, { status: 'succeeded', refunded_rub: '100.0000' });
  t.like(await simPayment(started.confirmation_url, started.provider_payment_id), { refunded_amount: { value: '100.00', currency: 'RUB' }, refundable: true });
  await assertLedgerInvariants(t, db);
});

testOnBackends('a refund of money already spent is refused with nothing written; allowed to, it takes the balance to exactly zero, never below', async (t, database) => {
  const shop = await openShop(t, database);
  const { gateway, accountId, key, browser, db } = shop;
  const started = await paidPayment(t, shop, '500');
  // The customer spends some of it.
  const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', max_tokens: 50, messages: [{ role: 'user', content: 'spend a little' }] }),
  });
  t.is(chat.status, 200);
  const left = await balanceUnits(db, accountId);
  t.true(left < rub500 && left > 0n);
  const rowsBefore = await ledgerRows(db, accountId);

  const refused = await t.throwsAsync(gateway.services.payments!.refunds.refund({ paymentId: started.id, allowSpent: false, actor: 'test:operator', reason: null }));
  t.is((refused as { code?: string }).code, 'refund_exceeds_available');
  t.deepEqual(await ledgerRows(db, accountId), rowsBefore);
  t.deepEqual(await db('payment_refunds').where({ payment_id: started.id }), []);
  t.like((await readPayment(gateway.url, browser, started.id)).body, { status: 'succeeded', refunded_rub: '0.0000' });
  t.is((await simPayment(started.confirmation_url, started.provider_payment_id)).refunded_amount, undefined, 'YooKassa was not asked');

  const refund = await gateway.services.payments!.refunds.refund({ paymentId: started.id, allowSpent: true, actor: 'test:operator', reason: 'spent, refunded anyway' });
  t.like(refund, { status: 'succeeded', amountMinor: 50_000n, shareUnits: rub500, debitUnits: left });
  t.is(await balanceUnits(db, accountId), 0n);
  t.deepEqual((await ledgerRows(db, accountId)).slice(rowsBefore.length), [{ kind: 'refund', amount: -left, source: paymentRefundSource(refund.id) }]);
  t.like(await simPayment(started.confirmation_url, started.provider_payment_id), { refunded_amount: { value: '500.00', currency: 'RUB' } });
  t.is((await readPayment(gateway.url, browser, started.id)).body.status, 'refunded');
  await assertLedgerInvariants(t, db);
});

