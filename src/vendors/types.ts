// The chat contract every chat-serving vendor implements (openai, anthropic, openai-compatible;
// the simulator reuses anthropic's), and the UpstreamError every adapter — chat, media or
// job — reports. Adapters are pure: they build the upstream HTTP request from a ChatRequest
// and turn the upstream's SSE events into StreamParts. The HTTP transport (pools, timeouts,
// aborts) is shared and lives in shared/http-transport.ts; adapters never touch sockets.
import type { ChatRequest, ModelCapabilities, StreamPart } from '../model/chat.js';

export interface UpstreamTarget {
  /** The upstream's own model name (the route's `model`). */
  readonly model: string;
  /** Provider base URL, e.g. "https://api.openai.com/v1" or "https://api.anthropic.com". */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly capabilities: ModelCapabilities;
  /** The output budget the pipeline decided (client max_tokens, or the clamped affordable value). */
  readonly maxOutputTokens: number;
  /** True for models of type `search` (citations expected). */
  readonly search: boolean;
  /** The provider's vendor-specific settings (a region, a project), when it has any. */
  readonly settings?: Readonly<Record<string, unknown>>;
}

export interface UpstreamHttpRequest {
  /** Absolute URL. */
  readonly url: string;
  readonly headers: Record<string, string>;
  /** JSON body; the upstream call is always a streaming one. */
  readonly body: Record<string, unknown>;
}

/**
 * How a streamed answer is cut into events (shared/stream-framing.ts): server-sent events, one
 * JSON document per line, or AWS's binary event stream (each message → its `:event-type` header
 * and its payload as text).
 */
export type StreamFraming = 'sse' | 'ndjson' | 'aws-eventstream';

/** One server-sent event as received: `event:` name (if any) and the joined `data:` lines. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** Parses one upstream stream. Stateful; one per response. */
export interface UpstreamStreamParser {
  /** Parts for one SSE event (may be none). Throws UpstreamError for an in-stream error event. */
  push(event: SseEvent): StreamPart[];
  /** Parts to close the stream when the upstream ended; throws UpstreamError when it was cut before finishing. */
  end(): StreamPart[];
}

/** An error the upstream reported, before or during the stream. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    /** Upstream HTTP status (0 for network errors or in-stream errors without one). */
    readonly status: number,
    /** Whether trying again (or another route) may succeed: 429, 5xx, overload, network. */
    readonly retryable: boolean,
    /** The upstream's error type/code when it gave one. */
    readonly upstreamType?: string,
    /** How long the upstream asked us to wait (Retry-After), when it said. */
    public retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export interface ChatAdapter {
  readonly kind: string;
  /** Whether it carries document parts (PDF, plain text) upstream; routes whose adapter does not are refused them. */
  readonly takesDocuments: boolean;
  /** How its streamed answer is cut into events; SSE when absent. */
  readonly framing?: StreamFraming;
  buildRequest(request: ChatRequest, target: UpstreamTarget): UpstreamHttpRequest;
  /** `request` as given to buildRequest: a parser may need to know what that request asked for (structured output). */
  createStreamParser(target: UpstreamTarget, request: ChatRequest): UpstreamStreamParser;
  /**
   * Turns a non-2xx upstream response into an UpstreamError. `headers` (lowercase names) for
   * vendors that put the error's type there (AWS: `x-amzn-errortype`).
   */
  parseError(status: number, bodyText: string, headers?: Readonly<Record<string, string | string[] | undefined>>): UpstreamError;
}
