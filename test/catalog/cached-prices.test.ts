// Issue 34 item 16: every sim/* chat model of the shipped catalog prices cached input at 10% of
// input (the simulator reports prefix caching, so a fresh install bills it as a vendor would),
// and `gateway models check` says when a chat model has no cached price.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { checkCatalog } from '../../src/catalog/check.js';
import { parseDecimal } from '../../src/billing/pricing.js';
import { loadConfig } from '../../src/config/load.js';

const examplePath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'config', 'gateway.example.yaml');

test('every sim/* text and search model of the example prices cached input at exactly 10% of input', (t) => {
  const config = loadConfig({ configPath: examplePath, env: {} });
  const chatModels = config.models.filter((model) => model.id.startsWith('sim/') && (model.type === 'text' || model.type === 'search'));
  t.deepEqual(chatModels.map((model) => model.id), ['sim/chat', 'sim/reasoning', 'sim/search']);
  for (const model of chatModels) {
    const input = parseDecimal(model.pricing.per_1m_input_tokens!);
    const cached = parseDecimal(model.pricing.per_1m_cached_input_tokens ?? '0');
    t.is(cached.numerator * input.denominator * 10n, input.numerator * cached.denominator, `${model.id}: ${model.pricing.per_1m_cached_input_tokens} of ${model.pricing.per_1m_input_tokens}`);
  }
  t.deepEqual(checkCatalog(config).filter((problem) => problem.model.startsWith('sim/') && problem.field === 'pricing.per_1m_cached_input_tokens'), []);
});

test('models check warns about a text or search model without a cached price, and only those', (t) => {
  const model = (id: string, type: string, pricing: Record<string, string>) => ({ id, name: id, type, route: { provider: 'sim', model: 'chat' }, pricing });
  const config = loadConfig({
    env: {},
    raw: {
      providers: { sim: { kind: 'sim' } },
      models: [
        model('sim/plain', 'text', { per_1m_input_tokens: '10.00', per_1m_output_tokens: '20.00' }),
        model('sim/cached', 'text', { per_1m_input_tokens: '10.00', per_1m_cached_input_tokens: '1.00', per_1m_output_tokens: '20.00' }),
        model('sim/find', 'search', { per_1m_input_tokens: '10.00', per_1m_output_tokens: '20.00' }),
        model('sim/vectors', 'embeddings', { per_1m_input_tokens: '1.00' }),
      ],
    },
  });
  t.deepEqual(
    checkCatalog(config).filter((problem) => problem.field === 'pricing.per_1m_cached_input_tokens'),
    ['sim/plain', 'sim/find'].map((id) => ({
      model: id,
      field: 'pricing.per_1m_cached_input_tokens',
      severity: 'warning',
      message: 'no cached input price: cached input tokens are charged at the full input price (10.00)',
    })),
  );
});
