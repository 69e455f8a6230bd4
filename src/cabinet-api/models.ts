// The cabinet's models and prices (GET /cabinet/api/models): every enabled model with its
// price per unit. RUB is the catalog's own decimal string (what the charge is computed from,
// exactly); USD is that price converted at the configured rate (`currency.usd_rub`, default
// 90.00) for display, to 6 decimals rounded half up — the same column /v1/models shows.
import type { Catalog } from '../catalog/catalog.js';

export interface PriceList {
  object: 'list';
  /** RUB per USD, as configured. */
  usd_rub: string;
  data: Record<string, unknown>[];
}

export function priceList(catalog: Catalog, usdRub: string): PriceList {
  const data = catalog.enabledModels.map((model) => {
    const { id, name, type, description, aliases, pricing, capabilities, deprecated } = model.publicObject;
    return { id, name, type, ...(description === undefined ? {} : { description }), aliases, pricing, capabilities: capabilities ?? null, deprecated: deprecated === true };
  });
  return { object: 'list', usd_rub: usdRub, data };
}
