// One Upstream per configured provider, built once at start: its vendor's chat adapter, base
// URL, key and its own connection pool. What a kind can do and where it lives by default come
// from the registry. Providers of kind `sim` without a base_url point at the built-in
// simulator, which the serving process starts on a loopback port of its own.
import type { ProviderConfig } from '../config/load.js';
import { vendorOf } from './registry.js';
import { createDispatcher, type SignableRequest, type Upstream } from './shared/http-transport.js';

export function createUpstreams(providers: Readonly<Record<string, ProviderConfig>>, simulatorUrl: string | undefined): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  for (const provider of Object.values(providers)) {
    if (!provider.enabled) continue;
    const vendor = vendorOf(provider.kind);
    if (!vendor) continue;
    // A `sim` provider with a base_url uses that simulator (`gateway simulate`, shared by several
    // gateway processes); without one, the simulator this process started.
    const baseUrl = provider.baseUrl ?? (vendor.servedBySimulator ? simulatorUrl : vendor.defaultBaseUrl);
    if (!baseUrl) continue;
    const upstream: Upstream = {
      name: provider.name,
      kind: provider.kind,
      adapter: vendor.chat,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey: provider.apiKey,
      timeoutMs: provider.timeoutMs,
      dispatcher: createDispatcher(),
      settings: provider.settings,
      secrets: provider.secrets,
    };
    const exchange = vendor.credentials;
    const signRequest = vendor.signRequest;
    upstreams.set(provider.name, {
      ...upstream,
      ...(exchange ? { credential: (signal: AbortSignal) => exchange(upstream, signal) } : {}),
      ...(signRequest ? { sign: (request: SignableRequest) => signRequest(request, upstream) } : {}),
    });
  }
  return upstreams;
}

export function needsSimulator(providers: Readonly<Record<string, ProviderConfig>>): boolean {
  return Object.values(providers).some((provider) => vendorOf(provider.kind)?.servedBySimulator === true && provider.baseUrl === undefined);
}
