// What one upstream vendor offers the gateway: its chat adapter (when it serves chat), its
// media adapters and job adapters, and where it is reached when the provider's config names
// no base_url. Each vendor folder exports one of these (vendor.ts); registry.ts maps provider
// kinds to them.
import type { ZodRawShape } from 'zod';
import type { JobAdapter } from './job-types.js';
import type { MediaAdapter } from './media-types.js';
import type { ChatAdapter } from './types.js';
import type { UsageApi } from './usage-types.js';
import type { CredentialSource, SignableRequest } from './shared/http-transport.js';

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
  /**
   * The settings its providers take beyond kind, base_url, api_key_env and timeout (a region, a
   * project, a folder): zod fields merged into the provider's config schema, refused on
   * providers of other kinds. A field named `…_env` names an environment variable: its value
   * reaches the vendor as `secrets[name without _env]`, never in the file.
   */
  readonly providerSettings?: ZodRawShape;
  /**
   * The credential sent upstream as the target's apiKey, when it is not the configured key
   * itself: a token exchanged for it (GigaChat's OAuth, a Vertex service account's JWT, a Yandex
   * IAM token), cached by the vendor until shortly before it expires. Called before each
   * upstream request; an UpstreamError when the exchange fails.
   */
  credentials?(source: CredentialSource, signal: AbortSignal): Promise<string>;
  /**
   * Headers that sign one request over its exact bytes (AWS SigV4: authorization, x-amz-date,
   * x-amz-content-sha256, x-amz-security-token), for vendors whose credential is not a bearer
   * token. Called by the chat transport just before sending, after the body is serialized;
   * an UpstreamError when it cannot sign (credentials missing: 401, not retryable).
   */
  signRequest?(request: SignableRequest, source: CredentialSource): Promise<Record<string, string>>;
}
