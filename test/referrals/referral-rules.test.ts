// The arithmetic of referrals (src/referrals/referral-hooks.ts): the share rounded down to a
// unit (nothing when it is below one), the window in calendar months (UTC, the day kept or the
// month's last day), the percent written as the config wrote it.
import test from 'ava';
import { addMonths, formatPercent, referralShareUnits } from '../../src/referrals/referral-hooks.js';

test('the share is percent of the top-up rounded down to a unit, 0 below one unit', (t) => {
  t.is(referralShareUnits(10_000_000n, 1000n), 1_000_000n);
  t.is(referralShareUnits(100n, 750n), 7n);
  t.is(referralShareUnits(100n, 50n), 0n, '0.5% of 0.01 RUB is half a unit: nothing');
});

test('the window is calendar months in UTC; a day the target month lacks becomes its last day', (t) => {
  const at = (iso: string) => Date.parse(iso);
  t.is(addMonths(at('2026-11-28T12:00:00.000Z'), 12), at('2027-11-28T12:00:00.000Z'));
  t.is(addMonths(at('2027-01-31T23:59:59.999Z'), 1), at('2027-02-28T23:59:59.999Z'));
  t.is(addMonths(at('2028-01-31T00:00:00.000Z'), 1), at('2028-02-29T00:00:00.000Z'), 'a leap year');
  t.is(addMonths(at('2026-08-31T08:00:00.000Z'), 6), at('2027-02-28T08:00:00.000Z'));
  t.is(addMonths(at('2026-12-15T00:00:00.000Z'), 120), at('2036-12-15T00:00:00.000Z'));
});

test('the percent is written back as configured', (t) => {
  t.deepEqual([1000n, 250n, 1n, 10_000n, 1234n].map(formatPercent), ['10', '2.5', '0.01', '100', '12.34']);
});
