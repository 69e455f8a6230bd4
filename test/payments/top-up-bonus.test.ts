// payments.bonus_tiers (src/payments/top-up-bonus.ts; docs/payments.md, "Top-up bonuses"): the
// highest tier a top-up reaches gives its percent, rounded down to a unit; below every tier,
// nothing. Tiers come from the config sorted highest first, as config/load.ts sorts them.
import test from 'ava';
import { loadConfig } from '../../src/config/load.js';
import { tierBonusUnits } from '../../src/payments/top-up-bonus.js';

const rub = (amount: number) => BigInt(amount) * 10_000n;

test('the highest tier reached gives its percent of the top-up, rounded down to a unit; below the lowest tier, nothing', (t) => {
  const config = loadConfig({
    raw: { payments: { bonus_tiers: [{ from: '1000', percent: '5' }, { from: '10000', percent: '12.5' }, { from: '5000', percent: '10' }] } },
    env: {},
  });
  const tiers = config.payments!.bonusTiers;
  t.deepEqual(
    tiers.map((tier) => [tier.fromUnits, tier.basisPoints]),
    [
      [rub(10000), 1250n],
      [rub(5000), 1000n],
      [rub(1000), 500n],
    ],
  );
  t.is(tierBonusUnits(rub(999) + 9_999n, tiers), 0n, 'one unit short of the lowest tier');
  t.is(tierBonusUnits(rub(1000), tiers), rub(50));
  t.is(tierBonusUnits(rub(4999), tiers), rub(249) + 9_500n);
  t.is(tierBonusUnits(rub(5000), tiers), rub(500));
  t.is(tierBonusUnits(rub(10000), tiers), rub(1250));
  t.is(tierBonusUnits(rub(10000) + 7n, tiers), rub(1250), '12.5% of 7 units is 0.875 units: rounded down');
  t.is(tierBonusUnits(rub(5000), []), 0n, 'no tiers, no bonus');
});
