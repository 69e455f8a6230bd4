// The model catalog, built once from the frozen config: lookup tables for request
// resolution and the public JSON of GET /v1/models, both computed at start, not per request.
import type { Config, ProviderConfig } from '../config/load.js';
import type { ModelConfig, ModelType, Pricing } from '../config/schema.js';
import { convertDecimal } from '../billing/pricing.js';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { closestMatches } from './closest.js';

export interface Route {
  readonly provider: ProviderConfig;
  readonly model: string;
  readonly weight: number;
}

export interface CatalogModel {
  readonly id: string;
  readonly type: ModelType;
  readonly config: ModelConfig;
  /** Routes whose provider is enabled (its key env var is set, or it needs none). */
  readonly routes: readonly Route[];
  readonly enabled: boolean;
  /** The public object of /v1/models. */
  readonly publicObject: Readonly<Record<string, unknown>>;
}

export class ModelNotFoundError extends DomainError {
  override readonly catalogCode = 'model_not_found';

  constructor(
    readonly requested: string,
    readonly suggestions: readonly string[],
  ) {
    super(
      `The model "${requested}" does not exist or is not available on this gateway.` +
        (suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''),
    );
    this.name = 'ModelNotFoundError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, this.message, { param: 'model' });
  }
}

/** The unit each price key is quoted per, as shown to clients. */
export const priceUnits: Record<keyof Pricing, string> = {
  per_1m_input_tokens: '1M input tokens',
  per_1m_cached_input_tokens: '1M cached input tokens',
  per_1m_output_tokens: '1M output tokens',
  per_image: 'image',
  per_1m_characters: '1M characters',
  per_minute: 'minute of audio',
  per_second: 'second of video',
  per_reference: 'reference',
  per_generation: 'generation',
  per_megapixel_second: 'megapixel-second',
};

/** Default `created` for models that do not set one: 2025-01-01T00:00:00Z. */
const defaultCreated = 1_735_689_600;

export class Catalog {
  private readonly byName = new Map<string, CatalogModel>();
  readonly models: readonly CatalogModel[];
  /** Serialized once: GET /v1/models is served from this string. */
  readonly publicListJson: string;

  constructor(config: Config) {
    this.models = config.models.map((model) => buildModel(model, config));
    for (const model of this.models) {
      if (!model.enabled) continue;
      this.byName.set(model.id, model);
      for (const alias of model.config.aliases) this.byName.set(alias, model);
    }
    // Fallback aliases fill in only for names no enabled model claims.
    for (const model of this.models) {
      if (!model.enabled) continue;
      for (const alias of model.config.fallback_aliases) if (!this.byName.has(alias)) this.byName.set(alias, model);
    }
    this.publicListJson = JSON.stringify({
      object: 'list',
      data: this.models.filter((m) => m.enabled).map((m) => m.publicObject),
    });
  }

  /** Exact id, character for character, or an alias; otherwise ModelNotFoundError with suggestions. */
  resolve(name: string): CatalogModel {
    const model = this.byName.get(name);
    if (model) return model;
    throw new ModelNotFoundError(name, closestMatches(name, [...this.byName.keys()], 3));
  }

  get enabledModels(): CatalogModel[] {
    return this.models.filter((m) => m.enabled);
  }
}

/**
 * The catalog's `type` is one of the spec's eight values; strict clients reject anything else.
 * Decision models (a type of the config, for routing /v1/decisions) are listed as `text` — they
 * read text and answer typed judgments — with `capabilities.decisions: true`.
 */
function publicType(type: ModelConfig['type']): string {
  return type === 'decision' ? 'text' : type;
}

function buildModel(model: ModelConfig, config: Config): CatalogModel {
  const declared = model.routes ?? (model.route ? [model.route] : []);
  const routes = declared
    .map((route) => ({ provider: config.providers[route.provider]!, model: route.model, weight: route.weight ?? 1 }))
    .filter((route) => route.provider?.enabled);
  const capabilities = model.capabilities;
  const publicObject: Record<string, unknown> = {
    id: model.id,
    object: 'model',
    created: model.created ?? defaultCreated,
    owned_by: model.owned_by ?? (model.id.includes('/') ? model.id.split('/')[0] : 'gateway'),
    name: model.name,
    type: publicType(model.type),
    aliases: model.aliases,
    pricing: publicPricing(model.pricing, config.currency.usdRub),
  };
  if (model.description) publicObject.description = model.description;
  if (model.deprecated) publicObject.deprecated = true;
  if (model.type === 'text' || model.type === 'search' || model.type === 'decision') {
    publicObject.capabilities = {
      reasoning_efforts: capabilities.reasoning_efforts ?? [],
      can_disable_reasoning: capabilities.can_disable_reasoning ?? false,
      vision: capabilities.vision ?? false,
      tools: capabilities.tools ?? false,
      max_output_tokens: capabilities.max_output_tokens ?? null,
      context_window: capabilities.context_window ?? null,
      // A decision model is listed as `text` (see publicType); this says it serves /v1/decisions only.
      ...(model.type === 'decision' ? { decisions: true } : {}),
    };
  } else if (Object.keys(capabilities).length > 0) {
    publicObject.capabilities = capabilities;
  }
  if (model.type === 'image') publicObject.references = capabilities.references ?? false;
  return { id: model.id, type: model.type, config: model, routes, enabled: routes.length > 0, publicObject };
}

/** { per_1m_input_tokens: { unit, rub: "13.50", usd: "0.15" }, per_image: { unit, rub: {hd: …}, usd: {hd: …} } } */
function publicPricing(pricing: Pricing, usdRub: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pricing) as [keyof Pricing, string | Record<string, string> | undefined][]) {
    if (value === undefined) continue;
    if (typeof value === 'string') {
      out[key] = { unit: priceUnits[key], rub: value, usd: convertDecimal(value, usdRub) };
    } else {
      out[key] = {
        unit: priceUnits[key],
        rub: { ...value },
        usd: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convertDecimal(v, usdRub)])),
      };
    }
  }
  return out;
}
