// Customers' payments in the admin API (/admin/v1/payments, issue 32): listed and shown with
// their account, the receipt's email and their refunds, every answer as the OpenAPI document
// says; refunded to the card through the simulated YooKassa, refused while the money is spent
// and then allowed to take the balance to exactly zero, never below; 422s naming the field;
// scope refusals. On SQLite and PostgreSQL. Money in units of 0.0001 RUB: 500 RUB = 5_000_000n.
import { paymentRefundSource, paymentSource } from '../../src/payments/credit-sources.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { testActor } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { balanceUnits, ledgerRows, yookassaConfig } from '../payments/yookassa-flow.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';
import { customerPayment } from './payment-fixtures.js';

const start = Date.parse('2026-11-28T12:00:00Z');
const second = 1000;

/** YooKassa's record of a payment, asked of the simulator on its own wire. */
async function atYookassa(confirmationOrigin: string, providerPaymentId: string): Promise<Record<string, any>> {
  const response = await fetch(`${confirmationOrigin}/yookassa/v3/payments/${providerPaymentId}`, { headers: { authorization: `Basic ${Buffer.from('1:test').toString('base64')}` } });
  return (await response.json()) as Record<string, any>;
}

testOnBackends('admin API: payments listed newest first with account, email and refunds, filtered and paged; shown; a refund refused while the money is spent, then allowed to take the balance to exactly zero', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { raw: yookassaConfig(), now: clock.now });
  const { services } = gateway;
  const shop = await services.accounts.create('shop');
  const other = await services.accounts.create('other');
  const { token, adminToken } = await services.cabinet.adminTokens.create({ name: 'payments', actor: testActor });
  const credentials = { token };

  // Four payments a second apart (ids sort by time): shop pays 500, cancels 300, leaves 200 pending; other pays 1000.
  const paid = await customerPayment(t, gateway, shop.id, '500');
  clock.advance(second);
  const cancelled = await customerPayment(t, gateway, shop.id, '300', 'cancel');
  clock.advance(second);
  const pending = await customerPayment(t, gateway, shop.id, '200', 'leave');
  clock.advance(second);
  const others = await customerPayment(t, gateway, other.id, '1000');
  const simOrigin = new URL(String((await database.db('payments').where({ id: pending.payment.id }).first()).confirmation_url)).origin;

  const list = expectAnswer(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/payments'), 200, 'GET', '/admin/v1/payments');
  t.is(list.has_more, false);
  t.deepEqual(list.data.map((payment: any) => payment.id), [others, pending, cancelled, paid].map((made) => made.payment.id));
  const paidId = paid.payment.id as string;
  const providerId = paid.payment.provider_payment_id as string;
  const paidShown = {
    id: paidId,
    object: 'payment',
    provider: 'yookassa',
    provider_payment_id: providerId,
    status: 'succeeded',
    amount_rub: '500.0000',
    charged: { amount: '500.00', currency: 'rub' },
    rate: null,
    credited_rub: '500.0000',
    refunded_rub: '0.0000',
    failure: null,
    created_at: '2026-11-28T12:00:00.000Z',
    paid_at: '2026-11-28T12:00:00.000Z',
    account_id: shop.id,
    account_name: 'shop',
    email: paid.email,
    refunds: [],
  };
  t.deepEqual(list.data[3], paidShown);
  t.like(list.data[2], { status: 'cancelled', amount_rub: '300.0000', credited_rub: null, failure: 'yoo_money: expired_on_confirmation', paid_at: null, account_name: 'shop', refunds: [] });
  t.like(list.data[1], { status: 'pending', amount_rub: '200.0000', credited_rub: null, created_at: '2026-11-28T12:00:02.000Z' });
  t.like(list.data[0], { status: 'succeeded', account_id: other.id, account_name: 'other', email: others.email, credited_rub: '1000.0000' });

  // Filters (the account by name or id) and pages (before: the last id of the page before).
  const ids = async (query: string) => expectAnswer(t, await admin(gateway.url, credentials, 'GET', `/admin/v1/payments${query}`), 200, 'GET', '/admin/v1/payments');
  t.deepEqual((await ids('?status=succeeded')).data.map((payment: any) => payment.id), [others.payment.id, paidId]);
  t.deepEqual((await ids('?account=shop')).data.map((payment: any) => payment.id), [pending, cancelled, paid].map((made) => made.payment.id));
  t.deepEqual((await ids(`?account=${shop.id}&status=cancelled`)).data.map((payment: any) => payment.id), [cancelled.payment.id]);
  const first = await ids('?account=shop&limit=2');
  t.deepEqual([first.data.map((payment: any) => payment.id), first.has_more], [[pending.payment.id, cancelled.payment.id], true]);
  const next = await ids(`?account=shop&limit=2&before=${first.data[1].id}`);
  t.deepEqual([next.data.map((payment: any) => payment.id), next.has_more], [[paidId], false]);
  expectRefusal(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/payments?status=paid'), 422, 'validation_error', 'status');
  expectRefusal(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/payments?limit=0'), 422, 'validation_error', 'limit');
  expectRefusal(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/payments?before=yesterday'), 422, 'validation_error', 'before');
  expectRefusal(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/payments?account=nobody'), 404, 'not_found');

  t.deepEqual(expectAnswer(t, await admin(gateway.url, credentials, 'GET', `/admin/v1/payments/${paidId}`), 200, 'GET', '/admin/v1/payments/:id'), paidShown);
  expectRefusal(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/payments/pay_nothing'), 404, 'not_found');

  // The money is partly spent: 120.50 RUB of the 500 taken by a correction (as a charge would).
  expectAnswer(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/accounts/shop/adjust', { amount_rub: '-120.5', reason: 'spent' }), 200, 'POST', '/admin/v1/accounts/:id/adjust');
  const refundPath = `/admin/v1/payments/${paidId}/refund`;
  const spent = await admin(gateway.url, credentials, 'POST', refundPath, {});
  expectRefusal(t, spent, 409, 'refund_exceeds_available');
  t.is(spent.body.error.message, '500.0000 RUB would be refunded but only 379.5000 RUB of the account is unspent; nothing was refunded. Refund anyway to take the balance to zero.');
  t.is(await balanceUnits(database.db, shop.id), 3_795_000n);
  t.deepEqual(await database.db('payment_refunds').select('id'), [], 'nothing was written');
  t.like(await atYookassa(simOrigin, providerId), { status: 'succeeded', refundable: true });
  t.is((await atYookassa(simOrigin, providerId)).refunded_amount, undefined, 'YooKassa was not asked');

  // Bad fields are 422s naming them; nothing written.
  for (const [body, param] of [
    [{ amount_rub: 100 }, 'amount_rub'],
    [{ amount_rub: '1.23456' }, 'amount_rub'],
    [{ amount_rub: '0' }, 'amount_rub'],
    [{ amount_rub: '-5' }, 'amount_rub'],
    [{ allow_spent: 'yes' }, 'allow_spent'],
    [{ reason: 'x'.repeat(501) }, 'reason'],
  ] as const) {
    expectRefusal(t, await admin(gateway.url, credentials, 'POST', refundPath, body), 422, 'validation_error', param);
  }

  // A part that is unspent: refunded to the card at once (YooKassa answers succeeded).
  const part = expectAnswer(t, await admin(gateway.url, credentials, 'POST', refundPath, { amount_rub: '100', reason: 'asked by the customer' }), 201, 'POST', '/admin/v1/payments/:id/refund');
  t.like(part, { payment_id: paidId, status: 'succeeded', amount: { amount: '100.00', currency: 'rub' }, share_rub: '100.0000', debit_rub: '100.0000', created_at: '2026-11-28T12:00:03.000Z' });
  t.regex(part.id, /^pref_/);
  t.is(await balanceUnits(database.db, shop.id), 2_795_000n);
  t.like(await atYookassa(simOrigin, providerId), { refunded_amount: { value: '100.00', currency: 'RUB' } });

  // The other 400 RUB: more than the 279.50 left, refused; allowed, the card gets 400 and the balance goes to exactly zero.
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', refundPath, {}), 409, 'refund_exceeds_available');
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', refundPath, { amount_rub: '400.01', allow_spent: true }), 409, 'payment_not_refundable');
  const rest = expectAnswer(t, await admin(gateway.url, credentials, 'POST', refundPath, { allow_spent: true }), 201, 'POST', '/admin/v1/payments/:id/refund');
  t.like(rest, { status: 'succeeded', amount: { amount: '400.00', currency: 'rub' }, share_rub: '400.0000', debit_rub: '279.5000' });
  t.is(await balanceUnits(database.db, shop.id), 0n);
  t.like(await atYookassa(simOrigin, providerId), { refunded_amount: { value: '500.00', currency: 'RUB' }, refundable: false });
  t.deepEqual(await ledgerRows(database.db, shop.id), [
    { kind: 'topup', amount: 5_000_000n, source: paymentSource('yookassa', providerId) },
    { kind: 'adjustment', amount: -1_205_000n, source: null },
    { kind: 'refund', amount: -1_000_000n, source: paymentRefundSource(part.id) },
    { kind: 'refund', amount: -2_795_000n, source: paymentRefundSource(rest.id) },
  ]);

  // Wholly refunded: the payment says so, with both refunds; nothing more can be refunded, nor a payment that was never paid.
  const shown = expectAnswer(t, await admin(gateway.url, credentials, 'GET', `/admin/v1/payments/${paidId}`), 200, 'GET', '/admin/v1/payments/:id');
  t.deepEqual(shown, { ...paidShown, status: 'refunded', refunded_rub: '500.0000', refunds: [part, rest] });
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', refundPath, { allow_spent: true }), 409, 'payment_not_refundable');
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', `/admin/v1/payments/${cancelled.payment.id}/refund`, {}), 409, 'payment_not_refundable');
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', `/admin/v1/payments/${pending.payment.id}/refund`, {}), 409, 'payment_not_refundable');
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/payments/pay_nothing/refund', {}), 404, 'not_found');

  const audit = await database.db('audit_log').where({ action: 'payment.refund' }).orderBy('id');
  t.deepEqual(
    audit.map((row: any) => [row.actor, row.target, JSON.parse(row.details).debit_rub, JSON.parse(row.details).shortfall_rub, JSON.parse(row.details).reason]),
    [
      [`admin-token:${adminToken.id}`, paidId, '100.0000', '0.0000', 'asked by the customer'],
      [`admin-token:${adminToken.id}`, paidId, '279.5000', '120.5000', null],
    ],
  );
  t.is(await balanceUnits(database.db, other.id), 10_000_000n, "the other account's payment is untouched");
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('admin API: reading payments needs the read scope, a refund the money scope; a refund of a provider no longer configured is refused, the list still reads', async (t, database) => {
  const gateway = await startGateway(t, database, { raw: yookassaConfig() });
  const { services } = gateway;
  const shop = await services.accounts.create('shop');
  const { payment } = await customerPayment(t, gateway, shop.id, '250');
  const read = (await services.cabinet.adminTokens.create({ name: 'reader', scopes: ['read'], actor: testActor })).token;
  const money = (await services.cabinet.adminTokens.create({ name: 'cashier', scopes: ['money'], actor: testActor })).token;

  expectAnswer(t, await admin(gateway.url, { token: read }, 'GET', '/admin/v1/payments'), 200, 'GET', '/admin/v1/payments');
  expectAnswer(t, await admin(gateway.url, { token: read }, 'GET', `/admin/v1/payments/${payment.id}`), 200, 'GET', '/admin/v1/payments/:id');
  const refused = await admin(gateway.url, { token: read }, 'POST', `/admin/v1/payments/${payment.id}/refund`, {});
  expectRefusal(t, refused, 403, 'admin_scope_missing');
  t.regex(refused.body.error.message, /lacks the "money" scope that POST \/admin\/v1\/payments\/:id\/refund needs/);
  expectRefusal(t, await admin(gateway.url, { token: money }, 'GET', '/admin/v1/payments'), 403, 'admin_scope_missing');
  expectRefusal(t, await admin(gateway.url, { token: money }, 'GET', `/admin/v1/payments/${payment.id}`), 403, 'admin_scope_missing');
  t.is(await database.db('payment_refunds').count({ n: '*' }).first().then((row: any) => Number(row.n)), 0);

  // The operator removes payments from the configuration: the payment still reads, a refund says why it cannot be made.
  await gateway.stop();
  const without = yookassaConfig();
  delete without.payments;
  const bare = await startGateway(t, database, { raw: without });
  const token = (await bare.services.cabinet.adminTokens.create({ name: 'all', actor: testActor })).token;
  const listed = expectAnswer(t, await admin(bare.url, { token }, 'GET', '/admin/v1/payments'), 200, 'GET', '/admin/v1/payments');
  t.deepEqual(listed.data.map((row: any) => [row.id, row.status, row.credited_rub]), [[payment.id, 'succeeded', '250.0000']]);
  const unavailable = await admin(bare.url, { token }, 'POST', `/admin/v1/payments/${payment.id}/refund`, {});
  expectRefusal(t, unavailable, 409, 'payment_provider_unavailable');
  t.is(unavailable.body.error.message, `payment ${payment.id} was made with yookassa, which is not configured in payments here: nothing was refunded`);
  t.is(await balanceUnits(database.db, shop.id), 2_500_000n);
  await assertLedgerInvariants(t, database.db);
});
