// Prices of the synchronous media operations, exact. The quote endpoints and the charges call
// these same functions.
import type { Pricing } from '../config/schema.js';
import { priceInUnits } from './pricing.js';

export interface ImageOptions {
  readonly size?: string;
  readonly quality?: string;
  readonly resolution?: string;
  readonly aspectRatio?: string;
}

/**
 * The price of one image: `per_image` itself, or from its table the first key that matches
 * the request's quality, size, resolution or aspect ratio, else "default". Undefined when
 * the table has no price for these options.
 */
export function imageUnitPrice(pricing: Pricing, options: ImageOptions): string | undefined {
  const perImage = pricing.per_image;
  if (perImage === undefined || typeof perImage === 'string') return perImage;
  for (const key of [options.quality, options.size, options.resolution, options.aspectRatio, 'default']) {
    if (key !== undefined && perImage[key] !== undefined) return perImage[key];
  }
  return undefined;
}

export function imagesPriceUnits(unitPrice: string, count: number): bigint {
  return priceInUnits([{ quantity: count, price: unitPrice, per: 1 }]);
}

/** Speech: per 1M input characters (Unicode code points). */
export function speechPriceUnits(pricing: Pricing, characters: number): bigint {
  return priceInUnits([{ quantity: characters, price: pricing.per_1m_characters ?? '0', per: 1_000_000 }]);
}

/** Embeddings and decisions: per 1M input tokens; output is free. */
export function inputTokensPriceUnits(pricing: Pricing, tokens: number): bigint {
  return priceInUnits([{ quantity: tokens, price: pricing.per_1m_input_tokens ?? '0', per: 1_000_000 }]);
}
