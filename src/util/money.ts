// Money is integers of 0.0001 RUB ("units") held in bigint: no float ever touches an amount.
// Amounts cross the program's edges (CLI, JSON, config) as decimal strings in RUB.
import { DomainError } from '../errors/domain-error.js';

export const UNITS_PER_RUB = 10_000n;
export const RUB_DECIMALS = 4;

export class MoneyFormatError extends DomainError {
  override readonly catalogCode = 'invalid_amount';
  override readonly seenIn = 'cli';
}

/**
 * "100.50" → 1005000n units. Up to 4 decimals: an amount finer than a unit is refused rather
 * than rounded, because a topup or adjustment must be exactly what the operator typed.
 */
export function parseRub(text: string, options: { allowNegative?: boolean } = {}): bigint {
  const match = /^(-?)(\d{1,15})(?:\.(\d{1,4}))?$/.exec(text.trim());
  if (!match) {
    throw new MoneyFormatError(`"${text}" is not an amount in RUB: use digits with up to ${RUB_DECIMALS} decimals, e.g. "100.50"`);
  }
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(whole!) * UNITS_PER_RUB + BigInt(fraction.padEnd(RUB_DECIMALS, '0'));
  if (sign === '-') {
    if (!options.allowNegative) throw new MoneyFormatError(`"${text}" is negative; a positive amount is needed`);
    return -units;
  }
  return units;
}

/** 1005000n → "100.5000"; -135n → "-0.0135". Always 4 decimals. */
export function formatRub(units: bigint): string {
  const negative = units < 0n;
  const absolute = negative ? -units : units;
  const whole = absolute / UNITS_PER_RUB;
  const fraction = (absolute % UNITS_PER_RUB).toString().padStart(RUB_DECIMALS, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/**
 * Converts units to a JS number for binding into SQL. Exact below 2^53 units
 * (900 billion RUB); anything beyond is refused instead of silently losing precision.
 */
export function unitsToSql(units: bigint): number {
  const value = Number(units);
  if (!Number.isSafeInteger(value)) throw new RangeError(`amount ${units} units is out of range`);
  return value;
}

/** Reads a bigint column back (pg returns strings, sqlite3 numbers). */
export function unitsFromSql(value: string | number | bigint | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  return BigInt(value);
}
