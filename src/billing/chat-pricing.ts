// Token pricing of text models, exact. The same functions price the hold (worst case), the
// affordable output budget and the final charge, so a quote and a charge never disagree.
import type { Pricing } from '../config/schema.js';
import type { Usage } from '../model/chat.js';
import { parseDecimal, priceInUnits } from './pricing.js';

export interface TokenPrices {
  readonly input: string;
  readonly cachedInput: string;
  readonly output: string;
}

const perMillion = 1_000_000;

export function tokenPrices(pricing: Pricing): TokenPrices {
  const input = pricing.per_1m_input_tokens ?? '0';
  return { input, cachedInput: pricing.per_1m_cached_input_tokens ?? input, output: pricing.per_1m_output_tokens ?? '0' };
}

/**
 * The charge for what the upstream reported: uncached input at the input price, cache reads
 * at the cached price, cache writes at the input price (no separate write price in the
 * catalog), output (reasoning included) at the output price; rounded up once.
 */
export function chargeForUsage(prices: TokenPrices, usage: Usage): bigint {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  return priceInUnits([
    { quantity: uncached, price: prices.input, per: perMillion },
    { quantity: usage.cachedInputTokens, price: prices.cachedInput, per: perMillion },
    { quantity: usage.outputTokens, price: prices.output, per: perMillion },
  ]);
}

/** The most a request can cost: every input token uncached plus the whole output budget. */
export function worstCaseUnits(prices: TokenPrices, inputTokens: number, maxOutputTokens: number): bigint {
  return priceInUnits([
    { quantity: inputTokens, price: prices.input, per: perMillion },
    { quantity: maxOutputTokens, price: prices.output, per: perMillion },
  ]);
}

/** The largest output budget whose worst case fits in `availableUnits` (0 when even the input does not). */
export function affordableOutputTokens(prices: TokenPrices, availableUnits: bigint, inputTokens: number): number {
  const inputUnits = priceInUnits([{ quantity: inputTokens, price: prices.input, per: perMillion }]);
  const remaining = availableUnits - inputUnits;
  if (remaining <= 0n) return 0;
  const output = parseDecimal(prices.output);
  if (output.numerator === 0n) return Number.MAX_SAFE_INTEGER;
  // tokens × (n/d RUB per 1M) × 10^4 units/RUB ≤ remaining  ⇔  tokens ≤ remaining × d × 10^6 / (n × 10^4)
  const tokens = (remaining * output.denominator * 1_000_000n) / (output.numerator * 10_000n);
  // Round-up of the final charge could exceed by one unit: step back until it fits exactly.
  let affordable = tokens > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tokens);
  while (affordable > 0 && worstCaseUnits(prices, inputTokens, affordable) > availableUnits) affordable--;
  return affordable;
}
