// Exact pricing: decimal price strings in, integer units out, rounded UP once per charge.
// Every quote endpoint and every charge goes through priceInUnits, so a quote is always
// exactly what the same request would be charged.
import { UNITS_PER_RUB } from '../util/money.js';

/** One priced quantity: `quantity` of something at `price` RUB per `per` of it. */
export interface PriceLine {
  /** Tokens, characters, seconds, images… A non-negative integer. */
  readonly quantity: bigint | number;
  /** Decimal RUB string, e.g. "13.50" (per 1M tokens) or "0.000135". */
  readonly price: string;
  /** How many of `quantity` the price is for (1_000_000 for per-1M-token prices, 60 for per-minute prices metered in seconds). */
  readonly per: bigint | number;
}

/** An exact non-negative rational number of units. */
interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

/** Parses a decimal string exactly into a fraction of RUB. */
export function parseDecimal(text: string): Fraction {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a non-negative decimal`);
  const fraction = match[2] ?? '';
  return { numerator: BigInt(match[1]! + fraction), denominator: 10n ** BigInt(fraction.length) };
}

function toBigInt(value: bigint | number, name: string): bigint {
  if (typeof value === 'bigint') return value;
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${value}`);
  return BigInt(value);
}

/** Exact sum of all lines in units, before rounding. */
export function exactUnits(lines: readonly PriceLine[]): Fraction {
  let numerator = 0n;
  let denominator = 1n;
  for (const line of lines) {
    const quantity = toBigInt(line.quantity, 'quantity');
    const per = toBigInt(line.per, 'per');
    if (quantity < 0n) throw new Error('quantity must not be negative');
    if (per <= 0n) throw new Error('per must be positive');
    const price = parseDecimal(line.price);
    const lineNumerator = quantity * price.numerator * UNITS_PER_RUB;
    const lineDenominator = price.denominator * per;
    numerator = numerator * lineDenominator + lineNumerator * denominator;
    denominator = denominator * lineDenominator;
  }
  return { numerator, denominator };
}

/** The charge for all lines together, in units, rounded up once. */
export function priceInUnits(lines: readonly PriceLine[]): bigint {
  const { numerator, denominator } = exactUnits(lines);
  return (numerator + denominator - 1n) / denominator;
}

/**
 * Converts a RUB decimal string into another currency at `rate` RUB per unit of it, to
 * `decimals` places, rounded half up. For display only (the catalog's USD column).
 */
export function convertDecimal(rub: string, rate: string, decimals = 6): string {
  const amount = parseDecimal(rub);
  const divisor = parseDecimal(rate);
  if (divisor.numerator === 0n) throw new Error('rate must be positive');
  const scale = 10n ** BigInt(decimals);
  // rub / rate = (a/b) / (c/d) = a*d / (b*c)
  const numerator = amount.numerator * divisor.denominator * scale;
  const denominator = amount.denominator * divisor.numerator;
  const scaled = (numerator * 2n + denominator) / (denominator * 2n);
  const whole = scaled / scale;
  const fraction = (scaled % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
