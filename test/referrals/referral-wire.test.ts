// A referral over the provider's real wire (the other referral tests hand Payments.apply a
// report): a referred customer pays with YooKassa through the simulated hosted page, the
// referrer earns its percent once, and a refund to the customer's card takes it back. On
// SQLite and PostgreSQL; 1000 RUB = 10_000_000n units.
import { paymentRefundSource, paymentSource, referralReversalSource, referralSource } from '../../src/payments/credit-sources.js';
import { referralCodeOf } from '../../src/referrals/referral-codes.js';
import { bindReferrer } from '../../src/referrals/referral-binding.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { balanceUnits, ledgerRows, openShop, paidPayment, yookassaConfig } from '../payments/yookassa-flow.js';

testOnBackends('a referred customer pays through the simulated YooKassa: the referrer earns 10% once; a refund takes it back', async (t, database) => {
  const shop = await openShop(t, database, { ...yookassaConfig(), referral: { percent: '10', months: 12 } });
  const { gateway, accountId, db } = shop;
  const referrer = await gateway.services.accounts.create('referrer');
  const code = await referralCodeOf(db, referrer.id);
  const binding = await db.transaction((trx) => bindReferrer(trx, accountId, code, gateway.services.now()));
  t.true(binding.bound);

  const started = await paidPayment(t, shop, '1000');
  // The notification and the page's return may both have reached the gateway: still one of each.
  await gateway.services.payments!.payments.confirm('yookassa', started.provider_payment_id);
  t.is(await balanceUnits(db, accountId), 10_000_000n);
  t.deepEqual(await ledgerRows(db, referrer.id), [{ kind: 'referral', amount: 1_000_000n, source: referralSource('yookassa', started.provider_payment_id) }]);

  const refund = await gateway.services.payments!.refunds.refund({ paymentId: started.id, allowSpent: false, actor: 'test:operator', reason: null });
  t.is(refund.status, 'succeeded');
  t.deepEqual(await ledgerRows(db, accountId), [
    { kind: 'topup', amount: 10_000_000n, source: paymentSource('yookassa', started.provider_payment_id) },
    { kind: 'refund', amount: -10_000_000n, source: paymentRefundSource(refund.id) },
  ]);
  t.deepEqual(await ledgerRows(db, referrer.id), [
    { kind: 'referral', amount: 1_000_000n, source: referralSource('yookassa', started.provider_payment_id) },
    { kind: 'referral', amount: -1_000_000n, source: referralReversalSource(refund.id) },
  ]);
  t.is(await balanceUnits(db, referrer.id), 0n);
  await assertLedgerInvariants(t, db);
});
