// What every POST …/price answers (images, videos, video upscales, music, speech,
// transcriptions): `{object, model, …what was priced, price_rub, price_usd}` — the quote in
// rubles as the charge would be, and in dollars at the configured rate — with the model named
// for the request log. One place, so the six answers cannot drift apart.
import { formatRub } from '../../util/money.js';
import { convertDecimal } from '../../billing/pricing.js';
import type { ServerServices } from '../../services.js';
import type { Context } from '../state.js';

export function answerPrice(ctx: Context, services: ServerServices, quote: { object: string; model: string; priceUnits: bigint }, priced: Record<string, unknown>): void {
  ctx.state.model = quote.model;
  const priceRub = formatRub(quote.priceUnits);
  ctx.body = {
    object: quote.object,
    model: quote.model,
    ...priced,
    price_rub: priceRub,
    price_usd: convertDecimal(priceRub, services.config.currency.usdRub),
  };
}
