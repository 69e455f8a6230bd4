// The media adapter of each upstream kind, per operation. One provider kind may speak several
// media protocols (the simulator speaks OpenAI's, System One's and Stability's), and each
// protocol has its own error bodies, so the adapter — with its parseError — is chosen for the
// operation, not for the kind alone.
import { openaiCompatibleMediaAdapter, openaiMediaAdapter } from './openai/adapter.js';
import { simOpenaiMediaAdapter } from './sim.js';
import { systemOneAdapter } from './system-one/adapter.js';
import type { MediaAdapter } from './types.js';
import { upscalerAdapter } from './upscaler/adapter.js';

export type MediaOperationName = Exclude<keyof MediaAdapter, 'kind' | 'parseError'>;

const adaptersByKind: Readonly<Record<string, readonly MediaAdapter[]>> = {
  openai: [openaiMediaAdapter],
  'openai-compatible': [openaiCompatibleMediaAdapter],
  'system-one': [systemOneAdapter],
  upscaler: [upscalerAdapter],
  sim: [simOpenaiMediaAdapter, systemOneAdapter, upscalerAdapter],
};

/** The adapter that does `operation` for upstreams of `kind`; undefined when the kind cannot. */
export function mediaAdapterFor(kind: string, operation: keyof MediaAdapter): MediaAdapter | undefined {
  if (operation === 'kind' || operation === 'parseError') return undefined;
  if (!Object.hasOwn(adaptersByKind, kind)) return undefined;
  return adaptersByKind[kind]!.find((adapter) => adapter[operation] !== undefined);
}

export { openaiCompatibleMediaAdapter, openaiMediaAdapter, simOpenaiMediaAdapter, systemOneAdapter, upscalerAdapter };
export { runMediaOperation, sendMedia } from './transport.js';
