// Converting between RUB (units of 0.0001) and a provider's currency (its minor unit: kopecks,
// cents), exactly. A payment in another currency is credited at the configured rate, rounded
// down once to a unit (issue 32): the customer is never credited more than they paid for.
import { UNITS_PER_RUB } from '../util/money.js';

/** Currencies without a minor unit, as Stripe lists them: amounts are whole units. */
const zeroDecimalCurrencies = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);

/** 10^(digits of the currency's minor unit): 100 for rub, usd, eur; 1 for jpy. */
export function minorPerUnit(currency: string): bigint {
  return zeroDecimalCurrencies.has(currency.toLowerCase()) ? 1n : 100n;
}

/** "92.50" → {numerator: 9250n, denominator: 100n}. */
function rateFraction(rate: string): { numerator: bigint; denominator: bigint } {
  const [whole, fraction = ''] = rate.split('.');
  return { numerator: BigInt(`${whole}${fraction}`), denominator: 10n ** BigInt(fraction.length) };
}

/** What `amountMinor` of `currency` credits, in units: × rate, rounded down once. */
export function creditUnitsOf(amountMinor: bigint, currency: string, rubRate: string): bigint {
  const { numerator, denominator } = rateFraction(rubRate);
  return (amountMinor * numerator * UNITS_PER_RUB) / (denominator * minorPerUnit(currency));
}

/**
 * What to charge, in the currency's minor unit, for `amountUnits` RUB: rounded up to a minor
 * unit, so that the credit (rounded down) is the amount asked or the nearest above it.
 */
export function chargeMinorOf(amountUnits: bigint, currency: string, rubRate: string): bigint {
  const { numerator, denominator } = rateFraction(rubRate);
  const top = amountUnits * denominator * minorPerUnit(currency);
  const bottom = numerator * UNITS_PER_RUB;
  return (top + bottom - 1n) / bottom;
}

/** 12345n (usd) → "123.45"; 500n (jpy) → "500". */
export function formatMinor(amountMinor: bigint, currency: string): string {
  const per = minorPerUnit(currency);
  if (per === 1n) return amountMinor.toString();
  const digits = per.toString().length - 1;
  const whole = amountMinor / per;
  const fraction = (amountMinor % per).toString().padStart(digits, '0');
  return `${whole}.${fraction}`;
}
