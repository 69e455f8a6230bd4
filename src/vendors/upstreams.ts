// One Upstream per configured provider, built once at start: its adapter, base URL, key and
// its own connection pool. Providers of kind `sim` point at the built-in simulator, which the
// serving process starts on a loopback port of its own.
import type { ProviderConfig } from '../config/load.js';
import { createDispatcher, type Upstream } from './shared/http-transport.js';
import { chatAdapterFor } from './registry.js';

const defaultBaseUrls: Partial<Record<ProviderConfig['kind'], string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

export function createUpstreams(providers: Readonly<Record<string, ProviderConfig>>, simulatorUrl: string | undefined): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  for (const provider of Object.values(providers)) {
    if (!provider.enabled) continue;
    const chat = provider.kind === 'openai' || provider.kind === 'anthropic' || provider.kind === 'openai-compatible' || provider.kind === 'sim';
    // A `sim` provider with a base_url uses that simulator (`gateway simulate`, shared by several
    // gateway processes); without one, the simulator this process started.
    const baseUrl = provider.kind === 'sim' ? (provider.baseUrl ?? simulatorUrl) : (provider.baseUrl ?? defaultBaseUrls[provider.kind]);
    if (!baseUrl) continue;
    upstreams.set(provider.name, {
      name: provider.name,
      kind: provider.kind,
      adapter: chat ? chatAdapterFor(provider.kind as 'openai' | 'anthropic' | 'openai-compatible' | 'sim') : undefined,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey: provider.apiKey,
      timeoutMs: provider.timeoutMs,
      dispatcher: createDispatcher(),
    });
  }
  return upstreams;
}

export function needsSimulator(providers: Readonly<Record<string, ProviderConfig>>): boolean {
  return Object.values(providers).some((provider) => provider.kind === 'sim' && provider.baseUrl === undefined);
}
