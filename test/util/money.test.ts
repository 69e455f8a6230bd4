import test from 'ava';
import { MoneyFormatError, formatRub, parseRub, unitsToSql } from '../../src/util/money.js';

const parses: [string, bigint][] = [
  ['0', 0n],
  ['1', 10_000n],
  ['100.50', 1_005_000n],
  ['100.5', 1_005_000n],
  ['0.0001', 1n],
  ['0.0135', 135n],
  ['999999999.9999', 9_999_999_999_999n],
];
for (const [text, units] of parses) {
  test(`parseRub("${text}") is ${units} units`, (t) => t.is(parseRub(text), units));
}

for (const bad of ['', 'abc', '1.00001', '1,5', '.5', '1e3', ' - 1', 'NaN', '0x10']) {
  test(`parseRub refuses "${bad}"`, (t) => {
    t.throws(() => parseRub(bad), { instanceOf: MoneyFormatError });
  });
}

test('negative amounts only when allowed', (t) => {
  t.throws(() => parseRub('-5'), { instanceOf: MoneyFormatError });
  t.is(parseRub('-5.25', { allowNegative: true }), -52_500n);
});

const formats: [bigint, string][] = [
  [0n, '0.0000'],
  [1n, '0.0001'],
  [-135n, '-0.0135'],
  [1_005_000n, '100.5000'],
  [-10_000n, '-1.0000'],
];
for (const [units, text] of formats) {
  test(`formatRub(${units}) is "${text}"`, (t) => t.is(formatRub(units), text));
}

test('round trip of every amount near a boundary', (t) => {
  for (const units of [0n, 1n, 9_999n, 10_000n, 10_001n, 123_456_789n]) t.is(parseRub(formatRub(units)), units);
});

test('unitsToSql refuses amounts beyond exact doubles', (t) => {
  t.is(unitsToSql(9_007_199_254_740_991n), 9_007_199_254_740_991);
  t.throws(() => unitsToSql(9_007_199_254_740_993n), { instanceOf: RangeError });
});
