// What one upstream vendor offers the gateway: its chat adapter (when it serves chat), its
// media adapters and job adapters, and where it is reached when the provider's config names
// no base_url. Each vendor folder exports one of these (vendor.ts); registry.ts maps provider
// kinds to them.
import type { JobAdapter } from './job-types.js';
import type { MediaAdapter } from './media-types.js';
import type { ChatAdapter } from './types.js';
import type { UsageApi } from './usage-types.js';

export interface Vendor {
  /** The chat adapter; absent when the vendor serves no chat (routes to it for chat are refused). */
  readonly chat?: ChatAdapter;
  /**
   * Media adapters in order of preference: the first that has an operation does it. A vendor
   * may speak several media protocols (the simulator speaks OpenAI's, System One's and
   * Stability's), each with its own error bodies, so the adapter — with its parseError — is
   * chosen per operation.
   */
  readonly media: readonly MediaAdapter[];
  /** Job adapters (video, video upscale, music), chosen per operation like the media ones. */
  readonly jobs: readonly JobAdapter[];
  /**
   * The vendor's usage API (what it billed over a period), read by `gateway reconcile`; absent
   * when the vendor has none the gateway can call (reconcile then says "no usage API").
   */
  readonly usage?: UsageApi;
  /** The base URL of a provider configured without base_url; without one, base_url is required. */
  readonly defaultBaseUrl?: string;
  /**
   * The built-in simulator: a provider configured without base_url uses the simulator the
   * serving process starts on a loopback port of its own.
   */
  readonly servedBySimulator?: true;
}
