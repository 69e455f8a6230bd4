// `gateway models check`: every model has the prices its type charges by, each within sane
// bounds, and routes that can be reached. A mistyped price must stop the operator here, not
// silently refuse every request (too high) or give everything away (missing).
import type { Config, ProviderConfig } from '../config/load.js';
import type { ModelType, Pricing } from '../config/schema.js';
import { parseDecimal } from '../billing/pricing.js';
import { mediaAdapterFor } from '../vendors/registry.js';

export interface CheckProblem {
  readonly model: string;
  readonly field: string;
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

/** Which prices each type must have (any one of a group is enough). */
const requiredPrices: Record<ModelType, (keyof Pricing)[][]> = {
  text: [['per_1m_input_tokens'], ['per_1m_output_tokens']],
  search: [['per_1m_input_tokens'], ['per_1m_output_tokens']],
  image: [['per_image']],
  video: [['per_second', 'per_megapixel_second']],
  music: [['per_generation']],
  tts: [['per_1m_characters']],
  stt: [['per_minute']],
  embeddings: [['per_1m_input_tokens']],
  decision: [['per_1m_input_tokens']],
};

/** Upper bounds in RUB: beyond these a price is far more likely a typo than a real tariff. */
export const priceCeilings: Record<keyof Pricing, string> = {
  per_1m_input_tokens: '200000',
  per_1m_cached_input_tokens: '200000',
  per_1m_output_tokens: '200000',
  per_image: '5000',
  per_1m_characters: '50000',
  per_minute: '1000',
  per_second: '1000',
  per_reference: '1000',
  per_generation: '5000',
  per_megapixel_second: '100',
};

function compare(a: string, b: string): number {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function checkCatalog(config: Config): CheckProblem[] {
  const problems: CheckProblem[] = [];
  for (const model of config.models) {
    const add = (field: string, severity: CheckProblem['severity'], message: string) =>
      problems.push({ model: model.id, field, severity, message });
    for (const group of requiredPrices[model.type]) {
      if (!group.some((key) => model.pricing[key] !== undefined)) {
        add(`pricing.${group[0]}`, 'error', `a ${model.type} model needs pricing.${group.join(' or pricing.')}`);
      }
    }
    for (const [key, value] of Object.entries(model.pricing) as [keyof Pricing, string | Record<string, string> | undefined][]) {
      if (value === undefined) continue;
      const entries = typeof value === 'string' ? [[key, value]] : Object.entries(value).map(([k, v]) => [`${key}.${k}`, v]);
      for (const [field, price] of entries) {
        if (compare(price!, priceCeilings[key]) > 0) {
          add(`pricing.${field}`, 'error', `${price} RUB per ${key.replace(/^per_/, '')} is above the sane ceiling of ${priceCeilings[key]} RUB`);
        } else if (compare(price!, '0') === 0) {
          add(`pricing.${field}`, 'warning', 'price is zero: this model is free to use');
        }
      }
    }
    const { per_1m_input_tokens: input, per_1m_cached_input_tokens: cached } = model.pricing;
    if (input && cached && compare(cached, input) > 0) {
      add('pricing.per_1m_cached_input_tokens', 'error', `cached input (${cached}) costs more than input (${input})`);
    }
    // Chat usage reports cached input tokens; without their price they cost the full input
    // price (billing/chat-pricing.ts), which is rarely what the vendor charges.
    if (input && !cached && (model.type === 'text' || model.type === 'search')) {
      add('pricing.per_1m_cached_input_tokens', 'warning', `no cached input price: cached input tokens are charged at the full input price (${input})`);
    }
    const routes = model.routes ?? (model.route ? [model.route] : []);
    // Previews promised by a route whose vendor cannot stream images would fail every such request.
    if (model.capabilities.partial_images) {
      for (const route of routes) {
        const kind = config.providers[route.provider]?.kind;
        if (kind && !mediaAdapterFor(kind, 'streamImages')) {
          add('capabilities.partial_images', 'error', `provider "${route.provider}" (${kind}) cannot stream partial images`);
        }
      }
    }
    const enabled = routes.filter((route) => config.providers[route.provider]?.enabled);
    if (enabled.length === 0) {
      const missing = [...new Set(routes.map((r) => unsetVariables(config.providers[r.provider]).join(' and ')).filter(Boolean))];
      add('route', 'warning', `disabled: set ${missing.join(' or ')} to enable it`);
    }
  }
  return problems;
}

/** The variables a disabled provider names that are not set: api_key_env, and its vendor's own `…_env` settings (Bedrock's access keys). */
function unsetVariables(provider: ProviderConfig | undefined): string[] {
  if (!provider) return [];
  const names = provider.apiKeyEnv !== undefined && provider.apiKey === undefined ? [provider.apiKeyEnv] : [];
  for (const [name, value] of Object.entries(provider.settings)) {
    if (name.endsWith('_env') && typeof value === 'string' && provider.secrets[name.slice(0, -'_env'.length)] === undefined) names.push(value);
  }
  return names;
}
