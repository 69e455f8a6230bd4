// The top-up page's arithmetic (web/src/top-up.ts) and words (web/src/payments.ts): the amount
// typed as the page writes amounts, checked against the configured bounds before anything is
// sent; the bonus tier reached and the estimate of a charge in another currency, each equal to
// what the server computes (src/payments/top-up-bonus.ts, currency.ts) for every amount and
// rate tried; every payment status and provider in words in both languages; the CSV of a new
// batch of codes (web/src/codes-csv.ts).
import test from 'ava';
import fc from 'fast-check';
import { chargeMinorOf, formatMinor } from '../../src/payments/currency.js';
import { tierBonusUnits } from '../../src/payments/top-up-bonus.js';
import { codesCsv } from '../../web/src/codes-csv.js';
import { translate } from '../../web/src/i18n/language.js';
import { paymentStatuses, paymentStatusLabel, providerChoiceLabel, providerLabel } from '../../web/src/payments.js';
import { bonusTierOf, chargeEstimate, checkAmount, shortRub, unitsOfRub, unitsOfTypedAmount } from '../../web/src/top-up.js';

const bounds = { min_rub: '100.0000', max_rub: '100000.0000' };

test('an amount is read as the page writes it: spaces, a decimal comma, at most kopecks', (t) => {
  t.is(unitsOfTypedAmount('500'), 5_000_000n);
  t.is(unitsOfTypedAmount('500.5'), 5_005_000n);
  t.is(unitsOfTypedAmount('1 000,50'), 10_005_000n);
  t.is(unitsOfTypedAmount('1\u00a0000'), 10_000_000n, 'the no-break space the Russian pages group thousands with');
  t.is(unitsOfTypedAmount(' 300 '), 3_000_000n);
  for (const refused of ['', '1,000.50', '10.005', '-5', '1e3', '5 р', '0x10', '1.2.3', '1234567890']) t.is(unitsOfTypedAmount(refused), undefined, refused);
});

test('the amount is checked against min_rub and max_rub, bounds included', (t) => {
  t.deepEqual(checkAmount('100', bounds), { ok: true, units: 1_000_000n, amountRub: '100' });
  t.deepEqual(checkAmount('100000', bounds), { ok: true, units: 1_000_000_000n, amountRub: '100000' });
  t.deepEqual(checkAmount('1 234,5', bounds), { ok: true, units: 12_345_000n, amountRub: '1234.50' });
  t.deepEqual(checkAmount('99.99', bounds), { ok: false, problem: 'range' });
  t.deepEqual(checkAmount('100000.01', bounds), { ok: false, problem: 'range' });
  t.deepEqual(checkAmount('abc', bounds), { ok: false, problem: 'format' });
  t.deepEqual(checkAmount('  ', bounds), { ok: false, problem: 'empty' });
});

test('amounts in buttons and in the request: whole roubles bare, kopecks with two digits', (t) => {
  t.is(shortRub(3_000_000n), '300');
  t.is(shortRub(3_005_000n), '300.50');
  t.is(shortRub(3_000_100n), '300.01');
  t.is(shortRub(3_000_001n), '300.0001', 'a configured amount finer than kopecks is kept whole');
  t.is(unitsOfRub('300.0000'), 3_000_000n);
  t.is(unitsOfRub('300'), 3_000_000n);
  t.is(unitsOfRub('-1'), undefined);
});

test('the bonus tier reached is the one the server pays, for every amount', (t) => {
  const tiers = [
    { from_rub: '20000.0000', percent: '15' },
    { from_rub: '5000.0000', percent: '10' },
    { from_rub: '10000.0000', percent: '12.5' },
  ];
  t.is(bonusTierOf(49_999_999n, tiers), undefined);
  t.is(bonusTierOf(50_000_000n, tiers)?.percent, '10');
  t.is(bonusTierOf(150_000_000n, tiers)?.percent, '12.5');
  t.is(bonusTierOf(200_000_000n, tiers)?.percent, '15');
  // The server's rule: tiers highest `from` first, the first reached applies.
  const serverTiers = [
    { fromUnits: 200_000_000n, basisPoints: 1500n },
    { fromUnits: 100_000_000n, basisPoints: 1250n },
    { fromUnits: 50_000_000n, basisPoints: 1000n },
  ];
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 1_000_000_000n }), (units) => {
      const tier = bonusTierOf(units, tiers);
      const percentBasisPoints = tier === undefined ? 0n : BigInt(Math.round(Number(tier.percent) * 100));
      return (units * percentBasisPoints) / 10_000n === tierBonusUnits(units, serverTiers);
    }),
  );
});

test('the estimate of a charge in another currency is what the gateway asks the provider for: RUB ÷ rate rounded up to the minor unit', (t) => {
  t.is(chargeEstimate(10_000_000n, 'usd', '92.50'), '10.82', '1000 RUB at 92.50 = 10.8108… USD, rounded up');
  t.is(chargeEstimate(9_250_000n, 'usd', '92.50'), '10.00', 'an exact division is not rounded');
  t.is(chargeEstimate(10_000_000n, 'jpy', '0.61'), '1640', 'a currency without a minor unit: whole yen');
  t.is(chargeEstimate(10_000_000n, 'usd', 'ninety'), undefined);
  t.is(chargeEstimate(10_000_000n, 'usd', '0'), undefined);
  const rate = fc
    .tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 8 }))
    .map(([whole, fraction, digits]) => (digits === 0 ? String(whole) : `${whole}.${String(fraction).padStart(8, '0').slice(0, digits)}`))
    .filter((text) => /[1-9]/.test(text));
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 1_000_000_000n }), rate, fc.constantFrom('usd', 'eur', 'jpy', 'krw'), (units, rubRate, currency) => {
      return chargeEstimate(units, currency, rubRate) === formatMinor(chargeMinorOf(units, currency, rubRate), currency);
    }),
  );
});

test('every payment status and provider in words, in both languages; an unknown one as the API spells it', (t) => {
  const inRussian = (key: Parameters<typeof translate>[1]) => translate('ru', key);
  const inEnglish = (key: Parameters<typeof translate>[1]) => translate('en', key);
  t.deepEqual(
    paymentStatuses.map((status) => paymentStatusLabel(status, inRussian)),
    ['ожидает оплаты', 'оплачен', 'отменён', 'возвращён'],
  );
  t.deepEqual(
    paymentStatuses.map((status) => paymentStatusLabel(status, inEnglish)),
    ['waiting for payment', 'paid', 'cancelled', 'refunded'],
  );
  t.is(paymentStatusLabel('disputed', inRussian), 'disputed');
  t.is(providerLabel('yookassa', inRussian), 'ЮKassa');
  t.is(providerLabel('yookassa', inEnglish), 'YooKassa');
  t.is(providerChoiceLabel('yookassa', inRussian), 'ЮKassa — банковские карты, СБП');
  t.is(providerChoiceLabel('yookassa', inEnglish), 'YooKassa — bank cards, SBP');
  t.is(providerLabel('stripe', inEnglish), 'Card (Stripe)');
  t.is(providerLabel('stripe', inRussian), 'Карта (Stripe)');
  t.is(providerLabel('paypal', inEnglish), 'paypal');
});

test('the CSV of new codes: a header, one row per code, CRLF, fields quoted when they must be', (t) => {
  const batch = { id: 'cbt_1', amount_rub: '500.0000', uses_per_code: 1, expires_at: '2027-01-31T00:00:00.000Z' };
  t.is(codesCsv(batch, ['AAAA-BBBB', 'CCCC-DDDD']), 'code,amount_rub,uses,expires_at,batch_id\r\nAAAA-BBBB,500.0000,1,2027-01-31T00:00:00.000Z,cbt_1\r\nCCCC-DDDD,500.0000,1,2027-01-31T00:00:00.000Z,cbt_1\r\n');
  t.is(codesCsv({ ...batch, expires_at: null }, ['A"B,C']), 'code,amount_rub,uses,expires_at,batch_id\r\n"A""B,C",500.0000,1,,cbt_1\r\n');
  t.is(codesCsv({ ...batch, expires_at: 1_800_000_000 }, ['X']).split('\r\n')[1], 'X,500.0000,1,2027-01-15T08:00:00.000Z,cbt_1', 'Unix seconds written as ISO 8601');
});
