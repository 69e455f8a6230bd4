// The model catalog as GET /cabinet/api/models gives it (the shape of /v1/models: prices per
// unit in RUB and, when the gateway has a rate, USD — exact strings; a price table keyed by
// size, quality or resolution is an object of such strings).
import { api } from './api.js';

export type Price = string | Record<string, string>;

export interface PricingEntry {
  unit: string;
  rub: Price;
  usd: Price | null;
}

export interface CatalogModel {
  id: string;
  name?: string;
  type: string;
  description?: string;
  deprecated?: boolean;
  aliases?: string[];
  pricing: Record<string, PricingEntry>;
  capabilities?: Record<string, unknown> | null;
}

export async function loadModels(): Promise<CatalogModel[]> {
  const answer = await api<{ data: CatalogModel[] }>('/cabinet/api/models');
  return answer.data;
}

/** The strings of a capability list (`sizes`, `qualities`, …), or none. */
export function capabilityList(model: CatalogModel | undefined, name: string): string[] {
  const value = model?.capabilities?.[name];
  return Array.isArray(value) ? value.map(String) : [];
}
