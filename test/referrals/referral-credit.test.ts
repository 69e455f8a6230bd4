// A referrer's share of its referrals' paid top-ups, on both databases (issue 32; docs/
// payments.md, "Referrals"): exactly referral.percent of the top-up (not of its tier bonus),
// rounded down, once however often the payment is reported; nothing for credits that are not
// paid top-ups; nothing once referral.months have passed (the injected clock); a refund takes
// the share back, in parts that add up exactly, and never more than the referrer has available:
// the rest is reported to the operator (audit row, listed by the admin API, and a warning);
// turning referrals off stops the earning, not the taking back.
import { readAudit } from '../../src/audit/audit-log.js';
import { bindReferrer } from '../../src/referrals/referral-binding.js';
import { referralCodeOf } from '../../src/referrals/referral-codes.js';
import { referralHooks } from '../../src/referrals/referral-hooks.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { capturedLogger, type TestGateway } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';
import { referralMoney, rowsOf } from './referral-setup.js';

const rub = (amount: number) => BigInt(amount) * 10_000n;

/** A referrer and an account it referred (bound now, as a sign-up through its link binds it). */
async function referrerAndReferred(gateway: TestGateway) {
  const referrer = await gateway.services.accounts.create('referrer');
  const referred = await gateway.services.accounts.create('referred');
  const code = await referralCodeOf(gateway.services.db, referrer.id);
  const binding = await gateway.services.db.transaction((trx) => bindReferrer(trx, referred.id, code, gateway.services.now()));
  if (!binding.bound) throw new Error(`not bound: ${binding.reason}`);
  return { referrerId: referrer.id, referredId: referred.id };
}

const balanceOf = async (gateway: TestGateway, accountId: string) => (await gateway.services.ledger.balance(accountId)).balanceUnits;

testOnBackends('a paid top-up of a referred account earns the referrer exactly the percent, once; its tier bonus and other credits earn nothing', async (t, database) => {
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const money = await referralMoney(t, database, { clock });
  const { gateway } = money;
  const { referrerId, referredId } = await referrerAndReferred(gateway);

  // 7.5% of 1000 RUB.
  const first = await money.paid(referredId, rub(1000));
  t.is(first.status, 'succeeded');
  t.deepEqual(await rowsOf(gateway, referrerId, 'referral'), [
    [rub(75), `referral:yookassa:${first.providerPaymentId}`, `referral income: 7.5% of a top-up of account ${referredId}`],
  ]);
  const [audit] = await readAudit(gateway.services.db, { accountId: referrerId, action: 'referral.credit', limit: 5 });
  t.like(audit, { actor: 'system:referrals', target: referrerId, details: { referred_account_id: referredId, payment_id: first.id, topup_rub: '1000.0000', percent: '7.5', amount_rub: '75.0000' } });

  // The provider reports it again (a replayed notification, the sweeper): nothing more.
  await money.payments.apply('yookassa', { id: first.providerPaymentId!, status: 'succeeded', amountMinor: 100_000n, currency: 'rub', reference: first.id, refundedMinor: 0n, createdAt: clock.now() });
  t.is((await rowsOf(gateway, referrerId, 'referral')).length, 1);

  // 5000 RUB reaches the 10% tier: the referred account gets its bonus, the referrer 7.5% of the 5000 only.
  const second = await money.paid(referredId, rub(5000));
  t.deepEqual((await rowsOf(gateway, referredId, 'bonus')).map(([amount, source]) => [amount, source]), [[rub(500), `payment-bonus:yookassa:${second.providerPaymentId}`]]);
  t.deepEqual((await rowsOf(gateway, referrerId, 'referral')).map(([amount]) => amount), [rub(75), rub(375)]);

  // Rounded down to a unit: 7.5% of 0.01 RUB (100 units) is 7.5 units → 7.
  await money.paid(referredId, 100n);
  t.deepEqual((await rowsOf(gateway, referrerId, 'referral')).map(([amount]) => amount), [rub(75), rub(375), 7n]);

  // Money that is not a paid top-up never reaches the hooks: the operator's top-up and bonus.
  await gateway.services.ledger.credit(referredId, rub(300), 'topup');
  await gateway.services.ledger.credit(referredId, rub(200), 'bonus', { description: 'operator bonus' });
  t.is((await rowsOf(gateway, referrerId, 'referral')).length, 3);
  t.is(await balanceOf(gateway, referrerId), rub(450) + 7n);
  t.is(await balanceOf(gateway, referredId), rub(1000 + 5000 + 500 + 300 + 200) + 100n);

  // The referrer's cabinet: the link, the percent, one referred account, the income.
  const owner = await newMember(gateway.services, { accountId: referrerId, role: 'owner' });
  const browser = await userLogin(gateway.services, { accountId: referrerId, userId: owner.id });
  const code = await referralCodeOf(gateway.services.db, referrerId);
  const page = await fetch(`${gateway.url}/cabinet/api/referral`, { headers: { cookie: browser.cookie } });
  t.is(page.status, 200);
  t.deepEqual(await page.json(), {
    enabled: true,
    code,
    link: `https://gateway.example.com/cabinet/signup?ref=${code}`,
    percent: '7.5',
    months: 12,
    referred_accounts: 1,
    income_rub: '450.0007',
  });
  await assertLedgerInvariants(t, gateway.services.db);
});

testOnBackends('top-ups earn for referral.months after the sign-up, calendar months on the injected clock, and not after', async (t, database) => {
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const money = await referralMoney(t, database, { clock });
  const { referrerId, referredId } = await referrerAndReferred(money.gateway);

  clock.advance(Date.parse('2027-11-28T12:00:00Z') - 1 - clock.now()); // the last millisecond of the 12 months
  await money.paid(referredId, rub(100));
  clock.advance(1);
  const late = await money.paid(referredId, rub(100));
  t.is(late.status, 'succeeded');
  t.deepEqual((await rowsOf(money.gateway, referrerId, 'referral')).map(([amount]) => amount), [75_000n], 'only the top-up inside the window earned');
  t.is(await balanceOf(money.gateway, referredId), rub(200));
  await assertLedgerInvariants(t, money.gateway.services.db);
});

testOnBackends('a refund takes the referral share back: whole for a whole refund, in parts that add up exactly for partial ones', async (t, database) => {
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const money = await referralMoney(t, database, { clock });
  const { gateway } = money;
  const { referrerId, referredId } = await referrerAndReferred(gateway);

  const whole = await money.paid(referredId, rub(1000));
  const wholeRefund = await money.refunded(whole, rub(1000));
  t.deepEqual(await rowsOf(gateway, referrerId, 'referral'), [
    [rub(75), `referral:yookassa:${whole.providerPaymentId}`, `referral income: 7.5% of a top-up of account ${referredId}`],
    [-rub(75), `referral-reversal:${wholeRefund}`, `referral income taken back: a top-up of account ${referredId} was refunded`],
  ]);
  const [reversal] = await readAudit(gateway.services.db, { accountId: referrerId, action: 'referral.reversal', limit: 5 });
  t.like(reversal, { actor: 'system:referrals', details: { referred_account_id: referredId, payment_id: whole.id, refund_id: wholeRefund, due_rub: '75.0000', taken_rub: '75.0000' } });

  // 100.01 RUB earns 7.5007 (75_007.5 units, rounded down); refunded in a third and the rest.
  const odd = await money.paid(referredId, 1_000_100n);
  await money.refunded(odd, 333_300n);
  await money.refunded(odd, 666_800n);
  const parts = (await rowsOf(gateway, referrerId, 'referral')).slice(2).map(([amount]) => amount);
  t.deepEqual(parts, [75_007n, -24_997n, -50_010n], 'earned × refunded ÷ paid, rounded down, each part the difference it makes');
  t.is(await balanceOf(gateway, referrerId), 0n);
  t.is(await balanceOf(gateway, referredId), 0n);

  // Referrals turned off since (a process whose config has no `referral`): what was earned is still taken back.
  const earned = await money.paid(referredId, rub(200));
  const { db, ledger, logger } = gateway.services;
  await money.refunded(earned, rub(200), referralHooks(db, ledger, undefined, logger, clock.now));
  t.deepEqual((await rowsOf(gateway, referrerId, 'referral')).slice(5).map(([amount]) => amount), [rub(15), -rub(15)]);
  t.is(referralHooks(db, ledger, undefined, logger, clock.now).onPaid, undefined, 'and nothing is earned');
  t.deepEqual(await readAudit(gateway.services.db, { action: 'referral.reversal_short', limit: 5 }), []);

  await assertLedgerInvariants(t, gateway.services.db);
});

testOnBackends('a refund after the referrer spent the share takes back only what is available; the shortfall is audited, listed by the admin API and logged', async (t, database) => {
  const clock = testClock({ start: Date.parse('2026-11-28T12:00:00Z') });
  const { logger, lines } = capturedLogger('warn');
  const money = await referralMoney(t, database, { clock, logger });
  const { gateway } = money;
  const { referrerId, referredId } = await referrerAndReferred(gateway);
  const { ledger } = gateway.services;

  const payment = await money.paid(referredId, rub(1000)); // the referrer earns 75 RUB
  // The referrer spends 55 of it, and a running request holds 5 more: 15 RUB available.
  await ledger.credit(referrerId, -rub(55), 'adjustment', { description: 'spent' });
  const hold = await ledger.hold(referrerId, rub(5), { ttlMs: 3_600_000 });
  const refundId = await money.refunded(payment, rub(1000));

  t.deepEqual((await rowsOf(gateway, referrerId, 'referral')).map(([amount, source]) => [amount, source]), [
    [rub(75), `referral:yookassa:${payment.providerPaymentId}`],
    [-rub(15), `referral-reversal:${refundId}`],
  ]);
  const after = await ledger.balance(referrerId);
  t.deepEqual([after.balanceUnits, after.heldUnits, after.availableUnits], [rub(5), rub(5), 0n], 'the held money stays; nothing below zero');
  const details = { referred_account_id: referredId, payment_id: payment.id, refund_id: refundId, due_rub: '75.0000', taken_rub: '15.0000', shortfall_rub: '60.0000' };
  const [short] = await readAudit(gateway.services.db, { accountId: referrerId, action: 'referral.reversal_short', limit: 5 });
  t.like(short, { actor: 'system:referrals', target: referrerId, details });

  // The operator finds it through the admin API (and `gateway audit ls --action referral.reversal_short`).
  const { token } = await createAdminToken(gateway.services);
  const listed = await fetch(`${gateway.url}/admin/v1/audit?action=referral.reversal_short`, { headers: { authorization: `Bearer ${token}` } });
  t.is(listed.status, 200);
  const body = (await listed.json()) as any;
  t.deepEqual(
    body.data.map((entry: any) => [entry.action, entry.account_id, entry.details.shortfall_rub]),
    [['referral.reversal_short', referrerId, '60.0000']],
  );
  const warning = lines.find((line) => line.msg.includes('could not be taken back whole'));
  t.like(warning, { level: 40, referrer_account_id: referrerId, shortfall_rub: '60.0000', refund_id: refundId });

  // A second referral refunded while the referrer has nothing available: no reversal row, all of it reported.
  const again = await money.paid(referredId, rub(200)); // earns 15
  await ledger.credit(referrerId, -rub(15), 'adjustment', { description: 'spent' });
  const secondRefund = await money.refunded(again, rub(200));
  t.is((await rowsOf(gateway, referrerId, 'referral')).length, 3, 'no row of 0');
  const shortfalls = await readAudit(gateway.services.db, { accountId: referrerId, action: 'referral.reversal_short', limit: 5 });
  t.deepEqual(shortfalls.map((row) => [row.details.refund_id, row.details.taken_rub, row.details.shortfall_rub]), [
    [secondRefund, '0.0000', '15.0000'],
    [refundId, '15.0000', '60.0000'],
  ]);
  await ledger.release(hold.id);
  await assertLedgerInvariants(t, gateway.services.db);
});
