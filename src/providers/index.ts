// The adapter of each upstream kind. `sim` (the built-in simulator) speaks Anthropic Messages
// at its base URL — thinking signatures, citations, cache usage — and goes through the very
// same adapter, so the simulator exercises the real translation path.
import { anthropicAdapter } from './anthropic/adapter.js';
import { openaiAdapter } from './openai/adapter.js';
import { openaiCompatibleAdapter } from './openai-compatible/adapter.js';
import type { ProviderAdapter } from './types.js';

export type UpstreamKind = 'openai' | 'anthropic' | 'openai-compatible' | 'sim';

export function adapterFor(kind: UpstreamKind): ProviderAdapter {
  switch (kind) {
    case 'openai':
      return openaiAdapter;
    case 'openai-compatible':
      return openaiCompatibleAdapter;
    case 'anthropic':
    case 'sim':
      return anthropicAdapter;
  }
}

export { anthropicAdapter, openaiAdapter, openaiCompatibleAdapter };
