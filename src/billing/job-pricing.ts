// Prices of the asynchronous media jobs, exact. The quote endpoints (/videos/price,
// /audio/music/price) and the holds of the create endpoints call these same functions.
import type { Pricing } from '../config/schema.js';
import { UNITS_PER_RUB } from '../util/money.js';
import { parseDecimal, priceInUnits } from './pricing.js';

export interface VideoPriceOptions {
  readonly seconds: number;
  /** "<w>x<h>". */
  readonly size: string;
  readonly references: number;
}

/** The resolution name of a size, by its shorter side: 1280x720 → "720p", 3840x2160 → "4K". */
export function resolutionOf(size: string): string {
  const [width, height] = size.split('x').map(Number);
  const shorter = Math.min(width!, height!);
  return shorter >= 2160 ? '4K' : `${shorter}p`;
}

/** The per-second price of a video: the table's entry for the size, else its resolution, else "default". */
export function videoSecondPrice(pricing: Pricing, size: string): string | undefined {
  const perSecond = pricing.per_second;
  if (perSecond === undefined || typeof perSecond === 'string') return perSecond;
  return perSecond[size] ?? perSecond[resolutionOf(size)] ?? perSecond.default;
}

/** seconds × per-second price (by size/resolution) + references × per_reference, rounded up once. */
export function videoPriceUnits(pricing: Pricing, options: VideoPriceOptions): bigint | undefined {
  const secondPrice = videoSecondPrice(pricing, options.size);
  if (secondPrice === undefined) return undefined;
  return priceInUnits([
    { quantity: options.seconds, price: secondPrice, per: 1 },
    { quantity: options.references, price: pricing.per_reference ?? '0', per: 1 },
  ]);
}

export interface UpscalePriceOptions {
  readonly width: number;
  readonly height: number;
  /** The input's duration in milliseconds (as read from the file). */
  readonly durationMs: number;
  /** The factor in hundredths: 1.5 → 150. */
  readonly factorHundredths: number;
}

/** Output megapixel-seconds (input pixels × factor² × seconds / 10⁶) × per_megapixel_second. */
export function videoUpscalePriceUnits(pricing: Pricing, options: UpscalePriceOptions): bigint {
  const quantity = BigInt(options.width) * BigInt(options.height) * BigInt(options.factorHundredths) ** 2n * BigInt(Math.ceil(options.durationMs));
  // pixels/10⁶ (megapixels) × factor²/10⁴ (hundredths squared) × ms/10³ (seconds)
  return priceInUnits([{ quantity, price: pricing.per_megapixel_second ?? '0', per: 1_000_000n * 10_000n * 1_000n }]);
}

/** A flat price per generation (music). */
export function generationPriceUnits(pricing: Pricing): bigint {
  return priceInUnits([{ quantity: 1, price: pricing.per_generation ?? '0', per: 1 }]);
}

/** An upstream's reported cost in units: RUB as is, USD at the configured rate, rounded up. */
export function reportedCostUnits(cost: { currency: 'USD' | 'RUB'; amount: string }, usdRub: string): bigint {
  const amount = parseDecimal(cost.amount);
  const rate = cost.currency === 'USD' ? parseDecimal(usdRub) : { numerator: 1n, denominator: 1n };
  const numerator = amount.numerator * rate.numerator * UNITS_PER_RUB;
  const denominator = amount.denominator * rate.denominator;
  return (numerator + denominator - 1n) / denominator;
}
