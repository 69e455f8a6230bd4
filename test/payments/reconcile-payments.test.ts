// The comparison of `gateway reconcile payments` (src/payments/reconcile-payments.ts) on plain
// values: each kind of difference on its own, matching by the provider's id and by reference,
// the rate of a payment in another currency, and what agrees giving nothing.
import test from 'ava';
import type { ProviderPayment } from '../../src/payments/provider.js';
import {
  comparePayments,
  describeDifference,
  presentDifference,
  unreadableProvider,
  type LedgerCredit,
  type LedgerPayment,
  type LedgerRecords,
  type ProviderRecords,
} from '../../src/payments/reconcile-payments.js';

const at = Date.parse('2026-11-20T10:00:00Z');

const reported = (id: string, fields: Partial<ProviderPayment> = {}): ProviderPayment => ({
  id,
  status: 'succeeded',
  amountMinor: 50_000n, // 500.00 RUB
  currency: 'rub',
  reference: `pay_${id}`,
  refundedMinor: 0n,
  createdAt: at,
  ...fields,
});
const row = (id: string, fields: Partial<LedgerPayment> = {}): LedgerPayment => ({ id: `pay_${id}`, accountId: 'acc_1', providerPaymentId: id, status: 'succeeded', currency: 'rub', rate: null, ...fields });
const credit = (id: string, units = 5_000_000n): LedgerCredit => ({ providerPaymentId: id, accountId: 'acc_1', units, paymentId: `pay_${id}` });

const yookassa = (payments: ProviderPayment[], unknownAtProvider: string[] = []): ProviderRecords => ({ provider: 'yookassa', rubRate: '1', reported: payments, unknownAtProvider });
const ledger = (records: Partial<LedgerRecords>): LedgerRecords => ({ payments: [], credits: [], refunds: [], ...records });

test('a paid, credited and partly refunded payment, a cancelled one and a pending one that agree: no difference', (t) => {
  const differences = comparePayments(
    yookassa([reported('a', { refundedMinor: 10_000n }), reported('b', { status: 'cancelled' }), reported('c', { status: 'pending' })]),
    ledger({
      payments: [row('a'), row('b', { status: 'cancelled' }), row('c', { status: 'pending' })],
      credits: [credit('a')],
      refunds: [
        { paymentId: 'pay_a', amountMinor: 4_000n, shareUnits: 400_000n },
        { paymentId: 'pay_a', amountMinor: 6_000n, shareUnits: 600_000n },
      ],
    }),
  );
  t.deepEqual(differences, []);
});

test('not_credited: the provider says succeeded, no topup row (our row pending, or cancelled here)', (t) => {
  const differences = comparePayments(yookassa([reported('a'), reported('b')]), ledger({ payments: [row('a', { status: 'pending' }), row('b', { status: 'cancelled' })] }));
  t.deepEqual(differences.map(presentDifference), [
    { kind: 'not_credited', provider: 'yookassa', provider_payment_id: 'a', payment_id: 'pay_a', account_id: 'acc_1', ledger_rub: null, provider_amount: { amount: '500.00', currency: 'rub' }, detail: 'yookassa says succeeded; no topup row here (our payment is pending)' },
    { kind: 'not_credited', provider: 'yookassa', provider_payment_id: 'b', payment_id: 'pay_b', account_id: 'acc_1', ledger_rub: null, provider_amount: { amount: '500.00', currency: 'rub' }, detail: 'yookassa says succeeded; no topup row here (our payment is cancelled)' },
  ]);
  t.is(describeDifference(differences[0]!), 'not_credited yookassa a pay_a acc_1 (ledger -, yookassa 500.00 rub): yookassa says succeeded; no topup row here (our payment is pending)');
});

test('a payment whose create answer was lost is matched by its reference', (t) => {
  const differences = comparePayments(yookassa([reported('a')]), ledger({ payments: [row('a', { providerPaymentId: null, status: 'pending' })] }));
  t.deepEqual(differences.map((difference) => [difference.kind, difference.paymentId]), [['not_credited', 'pay_a']]);
});

test('credited_not_paid: a topup row whose payment the provider reports pending or cancelled, or does not know, or said nothing of', (t) => {
  const differences = comparePayments(
    yookassa([reported('a', { status: 'pending' }), reported('b', { status: 'cancelled' })], ['c']),
    ledger({ payments: [row('a'), row('b'), row('c'), row('d')], credits: [credit('a'), credit('b'), credit('c', 1_000_000n), credit('d')] }),
  );
  t.deepEqual(
    differences.map((difference) => [difference.kind, difference.providerPaymentId, difference.ledgerUnits, difference.providerAmount?.minor ?? null, difference.detail]),
    [
      ['credited_not_paid', 'a', 5_000_000n, 50_000n, 'a topup row credited it, but yookassa says it is pending'],
      ['credited_not_paid', 'b', 5_000_000n, 50_000n, 'a topup row credited it, but yookassa says it is cancelled'],
      ['credited_not_paid', 'c', 1_000_000n, null, 'a topup row credited it, but yookassa does not know this payment'],
      ['credited_not_paid', 'd', 5_000_000n, null, 'a topup row credited it, but yookassa reported nothing of this payment'],
    ],
  );
  t.deepEqual(presentDifference(differences[2]!), { kind: 'credited_not_paid', provider: 'yookassa', provider_payment_id: 'c', payment_id: 'pay_c', account_id: 'acc_1', ledger_rub: '100.0000', provider_amount: null, detail: 'a topup row credited it, but yookassa does not know this payment' });
});

test('amount_differs: the provider amount converted as the credit was, against the topup row; a rate of the payment’s own is used, rounded down once', (t) => {
  const rub = comparePayments(yookassa([reported('a', { amountMinor: 49_999n })]), ledger({ payments: [row('a')], credits: [credit('a')] }));
  t.deepEqual(rub.map(presentDifference), [
    { kind: 'amount_differs', provider: 'yookassa', provider_payment_id: 'a', payment_id: 'pay_a', account_id: 'acc_1', ledger_rub: '500.0000', provider_amount: { amount: '499.99', currency: 'rub' }, detail: 'yookassa took what credits 499.9900 RUB; the topup row added 500.0000 RUB' },
  ]);
  // 10.01 USD at the payment's 92.555 RUB (the config says 95 now): 926.47555 RUB, credited 926.4755.
  const stripe: ProviderRecords = { provider: 'stripe', rubRate: '95', reported: [reported('cs_1', { amountMinor: 1_001n, currency: 'usd' })], unknownAtProvider: [] };
  const usdRow = row('cs_1', { currency: 'usd', rate: '92.555' });
  t.deepEqual(comparePayments(stripe, ledger({ payments: [usdRow], credits: [credit('cs_1', 9_264_755n)] })), []);
  const off = comparePayments(stripe, ledger({ payments: [usdRow], credits: [credit('cs_1', 9_264_756n)] }));
  t.deepEqual(off.map((difference) => [difference.kind, difference.detail]), [['amount_differs', 'stripe took what credits 926.4755 RUB; the topup row added 926.4756 RUB']]);
  t.deepEqual(presentDifference(off[0]!).provider_amount, { amount: '10.01', currency: 'usd' });
});

test('refund_differs: what the provider refunded against our succeeded refunds', (t) => {
  const more = comparePayments(yookassa([reported('a', { refundedMinor: 20_000n })]), ledger({ payments: [row('a')], credits: [credit('a')], refunds: [{ paymentId: 'pay_a', amountMinor: 10_000n, shareUnits: 1_000_000n }] }));
  t.deepEqual(more.map(presentDifference), [
    { kind: 'refund_differs', provider: 'yookassa', provider_payment_id: 'a', payment_id: 'pay_a', account_id: 'acc_1', ledger_rub: '100.0000', provider_amount: { amount: '200.00', currency: 'rub' }, detail: 'yookassa refunded 200.00 rub; our succeeded refunds sent back 100.00 rub' },
  ]);
  const none = comparePayments(yookassa([reported('a')]), ledger({ payments: [row('a', { status: 'refunded' })], credits: [credit('a')], refunds: [{ paymentId: 'pay_a', amountMinor: 50_000n, shareUnits: 5_000_000n }] }));
  t.deepEqual(none.map((difference) => [difference.kind, difference.ledgerUnits, difference.providerAmount]), [['refund_differs', 5_000_000n, { minor: 0n, currency: 'rub' }]]);
});

test('unknown_payment: a payment of the provider with no row here, whatever its status', (t) => {
  const differences = comparePayments(yookassa([reported('x', { reference: null }), reported('y', { status: 'cancelled', reference: 'pay_elsewhere' })]), ledger({}));
  t.deepEqual(differences.map(presentDifference), [
    { kind: 'unknown_payment', provider: 'yookassa', provider_payment_id: 'x', payment_id: null, account_id: null, ledger_rub: null, provider_amount: { amount: '500.00', currency: 'rub' }, detail: 'yookassa reports a succeeded payment that has no payment row here' },
    { kind: 'unknown_payment', provider: 'yookassa', provider_payment_id: 'y', payment_id: null, account_id: null, ledger_rub: null, provider_amount: { amount: '500.00', currency: 'rub' }, detail: 'yookassa reports a cancelled payment with reference pay_elsewhere that has no payment row here' },
  ]);
  t.is(describeDifference(differences[0]!), 'unknown_payment yookassa x (ledger -, yookassa 500.00 rub): yookassa reports a succeeded payment that has no payment row here');
});

test('pending_but_final: pending here, cancelled at the provider (its reason kept)', (t) => {
  const differences = comparePayments(yookassa([reported('a', { status: 'cancelled', failure: 'yoo_money: expired_on_confirmation' })]), ledger({ payments: [row('a', { status: 'pending' })] }));
  t.deepEqual(differences.map((difference) => [difference.kind, difference.paymentId, difference.detail]), [['pending_but_final', 'pay_a', 'pending here, cancelled at yookassa (yoo_money: expired_on_confirmation)']]);
});

test('a payment both listed and fetched is compared once; differences come sorted by the provider’s id', (t) => {
  const differences = comparePayments(yookassa([reported('b'), reported('a'), reported('b')]), ledger({ payments: [row('a', { status: 'pending' }), row('b', { status: 'pending' })] }));
  t.deepEqual(differences.map((difference) => [difference.kind, difference.providerPaymentId]), [['not_credited', 'a'], ['not_credited', 'b']]);
});

test('provider_unreadable: one difference naming the provider and why', (t) => {
  t.deepEqual(presentDifference(unreadableProvider('stripe', 'connect ECONNREFUSED 127.0.0.1:9')), {
    kind: 'provider_unreadable',
    provider: 'stripe',
    provider_payment_id: null,
    payment_id: null,
    account_id: null,
    ledger_rub: null,
    provider_amount: null,
    detail: 'its payments could not be read: connect ECONNREFUSED 127.0.0.1:9',
  });
});
