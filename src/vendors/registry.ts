// The one table from provider kind (the `kind` of a provider in the config) to its vendor.
// Everything else is derived from it: the config's list of kinds, which providers can serve
// chat, their default base URLs, and the three lookups the pipeline and the job runner use.
// Adding a vendor is one folder under src/vendors/ and one line here (docs/development.md,
// "Adding a vendor").
import { anthropicVendor } from './anthropic/vendor.js';
import { bflVendor } from './bfl/vendor.js';
import { elevenLabsVendor } from './elevenlabs/vendor.js';
import { bedrockVendor } from './bedrock/vendor.js';
import { geminiVendor } from './gemini/vendor.js';
import type { JobAdapter, JobOperationName } from './job-types.js';
import { klingVendor } from './kling/vendor.js';
import type { MediaAdapter } from './media-types.js';
import { openaiCompatibleVendor } from './openai-compatible/vendor.js';
import { openaiVendor } from './openai/vendor.js';
import { simVendor } from './sim/vendor.js';
import { sunoVendor } from './suno/vendor.js';
import { systemOneVendor } from './system-one/vendor.js';
import type { ChatAdapter } from './types.js';
import { gigachatVendor } from './gigachat/vendor.js';
import { yandexVendor } from './yandex/vendor.js';
import { upscalerVendor } from './upscaler/vendor.js';
import type { UsageApi } from './usage-types.js';
import type { Vendor } from './vendor.js';

const vendors = {
  openai: openaiVendor,
  anthropic: anthropicVendor,
  'openai-compatible': openaiCompatibleVendor,
  sim: simVendor,
  'system-one': systemOneVendor,
  suno: sunoVendor,
  upscaler: upscalerVendor,
  bfl: bflVendor,
  elevenlabs: elevenLabsVendor,
  kling: klingVendor,
  bedrock: bedrockVendor,
  gemini: geminiVendor,
  yandex: yandexVendor,
  gigachat: gigachatVendor,
} as const satisfies Record<string, Vendor>;

export type ProviderKind = keyof typeof vendors;

/** Every provider kind, in the table's order (the config schema's enum). */
export const providerKinds = Object.keys(vendors) as [ProviderKind, ...ProviderKind[]];

/** The vendor of a provider kind; undefined for a kind no vendor has (and for Object's own keys). */
export function vendorOf(kind: string): Vendor | undefined {
  return Object.hasOwn(vendors, kind) ? vendors[kind as ProviderKind] : undefined;
}

/** The chat adapter of upstreams of `kind`; undefined when the kind serves no chat. */
export function chatAdapterFor(kind: string): ChatAdapter | undefined {
  return vendorOf(kind)?.chat;
}

export type MediaOperationName = Exclude<keyof MediaAdapter, 'kind' | 'parseError'>;

/** The adapter that does `operation` for upstreams of `kind`; undefined when the kind cannot. */
export function mediaAdapterFor(kind: string, operation: keyof MediaAdapter): MediaAdapter | undefined {
  if (operation === 'kind' || operation === 'parseError') return undefined;
  return vendorOf(kind)?.media.find((adapter) => adapter[operation] !== undefined);
}

/** The adapter that runs `operation` jobs on upstreams of `kind`; undefined when the kind cannot. */
export function jobAdapterFor(kind: string, operation: JobOperationName): JobAdapter | undefined {
  return vendorOf(kind)?.jobs.find((adapter) => adapter[operation] !== undefined);
}

/** The usage API of upstreams of `kind` (`gateway reconcile`); undefined when the vendor has none. */
export function usageApiFor(kind: string): UsageApi | undefined {
  return vendorOf(kind)?.usage;
}
