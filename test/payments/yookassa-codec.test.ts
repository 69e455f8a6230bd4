// The pure translation between the gateway and YooKassa's wire (src/payments/yookassa/
// yookassa-codec.ts): amounts exact both ways, statuses, the request bodies, notifications.
import test from 'ava';
import { NotificationRefusedError, type NewProviderPayment } from '../../src/payments/provider.js';
import { minorOfValue, notifiedPaymentId, paymentRequestOf, providerPaymentOf, refundRequestOf, refundStatusOf, statusOf, valueOfMinor } from '../../src/payments/yookassa/yookassa-codec.js';
import { wirePayment } from '../../src/payments/yookassa/yookassa-wire.js';

test('amount strings and kopecks convert exactly, both ways', (t) => {
  const pairs: [string, bigint][] = [
    ['0.00', 0n],
    ['0.01', 1n],
    ['1.00', 100n],
    ['500.00', 50_000n],
    ['1234.56', 123_456n],
    ['999999999.99', 99_999_999_999n],
    // 0.1 + 0.2 is not 0.3 in floats; here it is exact
    ['0.30', 30n],
  ];
  for (const [value, minor] of pairs) {
    t.is(minorOfValue(value), minor, value);
    t.is(valueOfMinor(minor), value, value);
  }
  // YooKassa may drop trailing zeros: read the same
  t.is(minorOfValue('500'), 50_000n);
  t.is(minorOfValue('500.5'), 50_050n);
  t.is(minorOfValue('0.1'), 10n);
});

test('a malformed amount is refused, never guessed at', (t) => {
  for (const value of ['', '1.001', '-1.00', '1e3', ' 1.00', '1,00', '1.', '.50', 'NaN', '12345678901234.00']) {
    t.throws(() => minorOfValue(value), { message: /not a decimal/ }, JSON.stringify(value));
  }
  t.throws(() => valueOfMinor(-1n));
});

test('statuses: pending and waiting_for_capture are pending, succeeded, canceled is cancelled; a canceled refund failed', (t) => {
  t.is(statusOf('pending'), 'pending');
  t.is(statusOf('waiting_for_capture'), 'pending');
  t.is(statusOf('succeeded'), 'succeeded');
  t.is(statusOf('canceled'), 'cancelled');
  t.is(refundStatusOf('pending'), 'pending');
  t.is(refundStatusOf('succeeded'), 'succeeded');
  t.is(refundStatusOf('canceled'), 'failed');
});

test('a payment object reads as the provider payment: amount, currency, our reference, refunds, the cancellation as the failure', (t) => {
  const paid = wirePayment.parse({
    id: '2d5c5a2d-000f-5000-8000-1b8c4cc8b0d5',
    status: 'succeeded',
    paid: true,
    amount: { value: '500.00', currency: 'RUB' },
    created_at: '2026-11-28T10:00:00.123Z',
    refunded_amount: { value: '100.50', currency: 'RUB' },
    metadata: { payment_id: 'pay_abc' },
    test: false,
  });
  t.deepEqual(providerPaymentOf(paid), {
    id: '2d5c5a2d-000f-5000-8000-1b8c4cc8b0d5',
    status: 'succeeded',
    amountMinor: 50_000n,
    currency: 'rub',
    reference: 'pay_abc',
    refundedMinor: 10_050n,
    createdAt: Date.parse('2026-11-28T10:00:00.123Z'),
  });
  const canceled = wirePayment.parse({ id: 'x', status: 'canceled', amount: { value: '1.00', currency: 'RUB' }, created_at: '2026-11-28T10:00:00Z', cancellation_details: { party: 'yoo_money', reason: 'expired_on_confirmation' } });
  t.like(providerPaymentOf(canceled), { status: 'cancelled', reference: null, refundedMinor: 0n, failure: 'yoo_money: expired_on_confirmation' });
  t.throws(() => providerPaymentOf(wirePayment.parse({ id: 'x', status: 'pending', amount: { value: '1.00', currency: 'RUB' }, created_at: 'yesterday' })), { message: /ISO 8601/ });
  t.false(wirePayment.safeParse({ id: 'x', status: 'paid', amount: { value: '1.00', currency: 'RUB' }, created_at: '2026-11-28T10:00:00Z' }).success, 'an unknown status is not silently read');
});

const newPayment: NewProviderPayment = {
  reference: 'pay_123',
  amountMinor: 123_456n,
  currency: 'rub',
  description: 'Пополнение баланса',
  email: 'buyer@example.test',
  returnUrl: 'https://gateway.example/cabinet/topup?payment=pay_123',
  cancelUrl: 'https://gateway.example/cabinet/topup?payment=pay_123',
  locale: 'ru',
};

test('the payment request: one stage, a redirect back, our id in the metadata, the 54-FZ receipt of one service item', (t) => {
  t.deepEqual(paymentRequestOf(newPayment, 6), {
    amount: { value: '1234.56', currency: 'RUB' },
    capture: true,
    confirmation: { type: 'redirect', return_url: 'https://gateway.example/cabinet/topup?payment=pay_123', locale: 'ru_RU' },
    description: 'Пополнение баланса',
    metadata: { payment_id: 'pay_123' },
    receipt: {
      customer: { email: 'buyer@example.test' },
      items: [{ description: 'Пополнение баланса', quantity: '1.00', amount: { value: '1234.56', currency: 'RUB' }, vat_code: 6, payment_subject: 'service', payment_mode: 'full_payment' }],
    },
  });
  const english = paymentRequestOf({ ...newPayment, email: null, locale: 'en', description: 'Balance top-up' }, 1);
  t.is(english.receipt, undefined, 'no email, no receipt');
  t.is(english.confirmation.locale, 'en_US');
  t.is(english.description, 'Balance top-up');
});

test('the refund request: the amount alone for a whole refund, with the refund receipt for a partial one', (t) => {
  t.deepEqual(refundRequestOf('pid', 50_000n, 'rub'), { payment_id: 'pid', amount: { value: '500.00', currency: 'RUB' } });
  t.deepEqual(refundRequestOf('pid', 10_000n, 'rub', { email: 'buyer@example.test', description: 'Balance top-up', vatCode: 1 }), {
    payment_id: 'pid',
    amount: { value: '100.00', currency: 'RUB' },
    receipt: {
      customer: { email: 'buyer@example.test' },
      items: [{ description: 'Balance top-up', quantity: '1.00', amount: { value: '100.00', currency: 'RUB' }, vat_code: 1, payment_subject: 'service', payment_mode: 'full_payment' }],
    },
  });
});

const body = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

test('a notification names the payment of a payment event and nothing else; the rest of its body is not read', (t) => {
  const id = '2d5c5a2d-000f-5000-8000-1b8c4cc8b0d5';
  for (const event of ['payment.succeeded', 'payment.canceled', 'payment.waiting_for_capture']) {
    t.is(notifiedPaymentId(body({ type: 'notification', event, object: { id, status: 'whatever', amount: { value: 'lots' } } })), id, event);
  }
  t.is(notifiedPaymentId(body({ type: 'notification', event: 'refund.succeeded', object: { id, payment_id: id } })), null);
  t.is(notifiedPaymentId(body({ type: 'notification', event: 'payout.succeeded', object: { id } })), null);
});

test('a body that is not a YooKassa notification is refused', (t) => {
  const refusals = ['', 'not json', '[]', 'null', { event: 'payment.succeeded', object: { id: 'x' } }, { type: 'notification', event: 'payment.succeeded' }, { type: 'notification', event: 'payment.succeeded', object: { id: 42 } }, { type: 'notification', event: 'payment.succeeded', object: { id: '../refunds/1' } }, { type: 'notification', event: 'payment.succeeded', object: { id: 'x'.repeat(65) } }];
  for (const refusal of refusals) t.throws(() => notifiedPaymentId(body(refusal)), { instanceOf: NotificationRefusedError }, JSON.stringify(refusal));
});
