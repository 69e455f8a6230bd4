// A gateway whose catalog reaches the simulator through every upstream kind: the built-in
// `sim` provider, and providers of kind openai, openai-compatible and anthropic pointed at a
// separately started simulator. Model ids: `<kind>/chat`, `<kind>/reasoning`, `<kind>/search`.
import type { ExecutionContext } from 'ava';
import type { Logger } from 'pino';
import { startSimulator } from '../../src/sim/server.js';
import type { TestDatabase } from './backends.js';
import { startGateway, type TestGateway } from './gateway.js';

export const upstreamKinds = ['sim', 'openai', 'compat', 'anthropic'] as const;
export type UpstreamKind = (typeof upstreamKinds)[number];

export const testPrices = { per_1m_input_tokens: '10.00', per_1m_cached_input_tokens: '1.00', per_1m_output_tokens: '40.00' };

export async function startChatGateway(
  t: ExecutionContext,
  database: TestDatabase,
  extra: { providers?: Record<string, unknown>; models?: unknown[]; /** More top-level config sections (bot, cabinet, …). */ raw?: Record<string, unknown>; /** Run a job runner in the gateway. */ jobRunner?: boolean; server?: Record<string, unknown>; observability?: Record<string, unknown>; now?: () => number; logger?: Logger; env?: Record<string, string> } = {},
): Promise<TestGateway & { simulatorUrl: string }> {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const providers: Record<string, unknown> = {
    sim: { kind: 'sim' },
    openai: { kind: 'openai', base_url: `${simulator.url}/v1`, api_key_env: 'TEST_UPSTREAM_KEY' },
    compat: { kind: 'openai-compatible', base_url: `${simulator.url}/v1` },
    anthropic: { kind: 'anthropic', base_url: simulator.url, api_key_env: 'TEST_UPSTREAM_KEY' },
    ...extra.providers,
  };
  const models = upstreamKinds.flatMap((kind) => {
    const reasoningModel = kind === 'compat' ? 'reasoning-compat' : 'reasoning';
    return [
      { id: `${kind}/chat`, name: `${kind} chat`, type: 'text', route: { provider: kind, model: 'chat' }, pricing: testPrices, capabilities: { tools: true, vision: true, max_output_tokens: 8192 } },
      {
        id: `${kind}/reasoning`,
        name: `${kind} reasoning`,
        type: 'text',
        route: { provider: kind, model: reasoningModel },
        pricing: testPrices,
        capabilities: { tools: true, vision: true, reasoning_efforts: ['minimal', 'low', 'medium', 'high'], can_disable_reasoning: true, max_output_tokens: 32768 },
      },
      { id: `${kind}/search`, name: `${kind} search`, type: 'search', route: { provider: kind, model: 'search' }, pricing: testPrices, capabilities: { max_output_tokens: 4096 } },
    ];
  });
  const raw = { ...extra.raw, providers, models: [...models, ...(extra.models ?? [])], ...(extra.server ? { server: extra.server } : {}), ...(extra.observability ? { observability: extra.observability } : {}) };
  const gateway = await startGateway(t, database, { raw, env: { TEST_UPSTREAM_KEY: 'sk-upstream', ...extra.env }, now: extra.now, logger: extra.logger, jobRunner: extra.jobRunner });
  return { ...gateway, simulatorUrl: simulator.url };
}

/** The exact charge for reported usage, computed independently of the gateway (BigInt). */
export function expectedChargeUnits(usage: { input: number; cached: number; output: number }): bigint {
  const uncached = BigInt(usage.input - usage.cached);
  // price per 1M tokens in RUB × 10^4 units/RUB: 10.00 → 100000, 1.00 → 10000, 40.00 → 400000
  const numerator = uncached * 100_000n + BigInt(usage.cached) * 10_000n + BigInt(usage.output) * 400_000n;
  return (numerator + 999_999n) / 1_000_000n;
}
