import test from 'ava';
import { convertDecimal, priceInUnits, type PriceLine } from '../../src/billing/pricing.js';

// [description, lines, expected units]; 1 unit = 0.0001 RUB.
const cases: [string, PriceLine[], bigint][] = [
  ['nothing costs nothing', [], 0n],
  ['zero quantity', [{ quantity: 0, price: '13.50', per: 1_000_000 }], 0n],
  ['1M tokens at 13.50 RUB', [{ quantity: 1_000_000, price: '13.50', per: 1_000_000 }], 135_000n],
  ['1 token at 13.50 per 1M rounds up to one unit', [{ quantity: 1, price: '13.50', per: 1_000_000 }], 1n],
  ['1000 tokens at 13.50 per 1M is exactly 0.0135', [{ quantity: 1000, price: '13.50', per: 1_000_000 }], 135n],
  ['1001 tokens at 13.50 per 1M rounds up once', [{ quantity: 1001, price: '13.50', per: 1_000_000 }], 136n],
  [
    'input + cached + output summed exactly, then rounded once',
    [
      { quantity: 1, price: '13.50', per: 1_000_000 }, // 0.0135 units
      { quantity: 1, price: '1.35', per: 1_000_000 }, // 0.00135 units
      { quantity: 1, price: '54.00', per: 1_000_000 }, // 0.054 units
    ],
    1n,
  ],
  [
    'rounding per line would give 3 units; once per charge gives 1',
    [
      { quantity: 2, price: '13.50', per: 1_000_000 }, // 0.27 units
      { quantity: 2, price: '13.50', per: 1_000_000 },
      { quantity: 2, price: '13.50', per: 1_000_000 },
    ],
    1n,
  ],
  ['per image', [{ quantity: 3, price: '3.60', per: 1 }], 108_000n],
  ['90 seconds of audio at 0.54 per minute, prorated to the second', [{ quantity: 90, price: '0.54', per: 60 }], 8_100n],
  ['61 seconds at 0.54 per minute rounds up', [{ quantity: 61, price: '0.54', per: 60 }], 5_490n],
  ['prices finer than a unit stay exact', [{ quantity: 3, price: '0.00003333', per: 1 }], 1n],
  ['a million characters at 1350 RUB', [{ quantity: 1_000_000, price: '1350', per: 1_000_000 }], 13_500_000n],
  ['bigint quantities', [{ quantity: 10n ** 12n, price: '0.000001', per: 1n }], 10_000_000_000n],
];

for (const [description, lines, expected] of cases) {
  test(`priceInUnits: ${description}`, (t) => t.is(priceInUnits(lines), expected));
}

test('priceInUnits refuses bad inputs', (t) => {
  t.throws(() => priceInUnits([{ quantity: -1, price: '1', per: 1 }]));
  t.throws(() => priceInUnits([{ quantity: 1, price: '-1', per: 1 }]));
  t.throws(() => priceInUnits([{ quantity: 1.5, price: '1', per: 1 }]));
  t.throws(() => priceInUnits([{ quantity: 1, price: '1', per: 0 }]));
});

const conversions: [string, string, string][] = [
  ['13.50', '90.00', '0.15'],
  ['1', '90', '0.011111'],
  ['0', '90', '0'],
  ['54.00', '90.00', '0.6'],
  ['0.0001', '3', '0.000033'],
];
for (const [rub, rate, usd] of conversions) {
  test(`convertDecimal(${rub} RUB at ${rate}) = ${usd} USD`, (t) => t.is(convertDecimal(rub, rate), usd));
}
