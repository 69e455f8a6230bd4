// Conversions between RUB units and a provider's minor units (src/payments/currency.ts) and the
// tier bonus (top-up-bonus.ts): exact, rounded the way issue 32 says (credit down, charge up).
import test from 'ava';
import { chargeMinorOf, creditUnitsOf, formatMinor, minorPerUnit } from '../../src/payments/currency.js';
import { tierBonusUnits } from '../../src/payments/top-up-bonus.js';

test('roubles: kopecks both ways, exactly', (t) => {
  t.is(chargeMinorOf(5_000_000n, 'rub', '1'), 50_000n);
  t.is(creditUnitsOf(50_000n, 'rub', '1'), 5_000_000n);
  t.is(formatMinor(50_005n, 'rub'), '500.05');
});

test('another currency: charged rounded up to a cent, credited rounded down to a unit', (t) => {
  t.is(chargeMinorOf(5_000_000n, 'usd', '92.50'), 541n); // 5.4054… USD
  t.is(creditUnitsOf(541n, 'usd', '92.50'), 5_004_250n); // 500.4250 RUB
  t.is(creditUnitsOf(1n, 'usd', '92.12345678'), 9_212n); // 0.92123… RUB → 0.9212
  t.is(chargeMinorOf(10_000n, 'usd', '92.50'), 2n); // 1 RUB → 0.0108 USD → 2 cents
  t.is(formatMinor(541n, 'usd'), '5.41');
});

test('zero-decimal currencies are whole units', (t) => {
  t.is(minorPerUnit('jpy'), 1n);
  t.is(chargeMinorOf(5_000_000n, 'jpy', '0.61'), 820n); // 500 / 0.61 = 819.67 → 820 JPY
  t.is(creditUnitsOf(820n, 'jpy', '0.61'), 5_002_000n); // 500.2000 RUB
  t.is(formatMinor(820n, 'jpy'), '820');
});

test('the highest tier reached gives its percent, rounded down; below every tier nothing', (t) => {
  const tiers = [
    { fromUnits: 100_000_000n, basisPoints: 1_500n },
    { fromUnits: 50_000_000n, basisPoints: 1_000n },
  ];
  t.is(tierBonusUnits(49_999_999n, tiers), 0n);
  t.is(tierBonusUnits(50_000_000n, tiers), 5_000_000n);
  t.is(tierBonusUnits(50_000_001n, tiers), 5_000_000n); // 0.1 unit rounded down
  t.is(tierBonusUnits(100_000_000n, tiers), 15_000_000n);
  t.is(tierBonusUnits(100_000_000n, []), 0n);
});
