// The arithmetic of the top-up page, exact (bigint units of 0.0001 RUB, as the ledger counts):
// reading the amount the customer typed, checking it against the gateway's bounds before
// anything is sent, the bonus tier it reaches, and what a provider in another currency will
// charge for it. The server decides every one of these again (src/payments/payments.ts,
// currency.ts, top-up-bonus.ts); the page only says it first. The estimate follows the
// server's rule exactly — RUB ÷ rate, rounded UP to the currency's minor unit — which
// test/web/top-up.test.ts checks against src/payments/currency.ts. Pure: no DOM.

const unitsPerRub = 10_000n;

/**
 * What the customer typed as an amount in RUB, read the way the page writes amounts: spaces
 * (no-break ones too) dropped, a decimal comma read as a point; at most 2 decimals (kopecks).
 * undefined when it is not such an amount.
 */
export function unitsOfTypedAmount(typed: string): bigint | undefined {
  const text = typed.replace(/\s/g, '');
  const normalized = text.includes('.') ? text : text.replace(',', '.');
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(normalized);
  if (!match) return undefined;
  return BigInt(match[1]!) * unitsPerRub + BigInt((match[2] ?? '').padEnd(4, '0'));
}

/** A decimal RUB string of the API ("300.0000") in units; undefined when it is not one. */
export function unitsOfRub(value: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d{1,4}))?$/.exec(value);
  if (!match) return undefined;
  return BigInt(match[1]!) * unitsPerRub + BigInt((match[2] ?? '').padEnd(4, '0'));
}

/** Units as the amount the page sends and shows in its buttons: "300", "300.50" (kopecks only when there are any). */
export function shortRub(units: bigint): string {
  const whole = units / unitsPerRub;
  const fraction = units % unitsPerRub;
  if (fraction === 0n) return whole.toString();
  const kopecks = fraction.toString().padStart(4, '0');
  return `${whole}.${kopecks.endsWith('00') ? kopecks.slice(0, 2) : kopecks}`;
}

export type AmountCheck =
  | { readonly ok: true; readonly units: bigint; /** What POST /cabinet/api/payments gets as amount_rub. */ readonly amountRub: string }
  | { readonly ok: false; readonly problem: 'empty' | 'format' | 'range' };

/** The typed amount against payments.min_rub and max_rub (the API's decimal strings). */
export function checkAmount(typed: string, bounds: { readonly min_rub: string; readonly max_rub: string }): AmountCheck {
  if (typed.trim() === '') return { ok: false, problem: 'empty' };
  const units = unitsOfTypedAmount(typed);
  if (units === undefined) return { ok: false, problem: 'format' };
  const min = unitsOfRub(bounds.min_rub);
  const max = unitsOfRub(bounds.max_rub);
  if ((min !== undefined && units < min) || (max !== undefined && units > max)) return { ok: false, problem: 'range' };
  return { ok: true, units, amountRub: shortRub(units) };
}

export interface BonusTier {
  readonly from_rub: string;
  readonly percent: string;
}

/** The tier an amount reaches: the one with the highest `from_rub` not above it (the server's rule), or undefined. */
export function bonusTierOf(units: bigint, tiers: readonly BonusTier[]): BonusTier | undefined {
  let reached: { tier: BonusTier; from: bigint } | undefined;
  for (const tier of tiers) {
    const from = unitsOfRub(tier.from_rub);
    if (from === undefined || from > units) continue;
    if (!reached || from > reached.from) reached = { tier, from };
  }
  return reached?.tier;
}

/** Currencies without a minor unit, as Stripe lists them (src/payments/currency.ts has the same list). */
const zeroDecimalCurrencies = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);

/**
 * What a provider charging in `currency` at `rubRate` RUB per unit will take for `units` RUB,
 * as a decimal string of that currency ("10.82" USD, "1082" JPY): rounded up to its minor unit,
 * as the gateway asks the provider. undefined for a rate that is not a decimal number.
 */
export function chargeEstimate(units: bigint, currency: string, rubRate: string): string | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(rubRate);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  const numerator = BigInt(`${match[1]}${fraction}`);
  if (numerator === 0n) return undefined;
  const denominator = 10n ** BigInt(fraction.length);
  const minorPerUnit = zeroDecimalCurrencies.has(currency.toLowerCase()) ? 1n : 100n;
  const top = units * denominator * minorPerUnit;
  const bottom = numerator * unitsPerRub;
  const minor = (top + bottom - 1n) / bottom;
  if (minorPerUnit === 1n) return minor.toString();
  return `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;
}
