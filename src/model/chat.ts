// THE internal representation of a chat request, its result and its stream. Every dialect
// (chat-completions, messages, responses) decodes into these types and encodes from them;
// every upstream adapter (openai, anthropic, openai-compatible, sim) builds its request from
// them and parses its stream into them. Imports nothing.
//
// Lossless where both sides can express a thing: tool calls (parallel, streamed argument
// fragments), reasoning with signatures (and redacted reasoning), images in, cache usage,
// finish reasons (the provider's raw value is kept next to the normalized one).

/** The spec's effort names, weakest first; 'off' disables reasoning (model/reasoning.ts reads the aliases). */
export type ReasoningEffort = 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

// ---------------------------------------------------------------- request

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image given by the client: a data: URL is split into media type and base64 data. */
export interface ImagePart {
  readonly type: 'image';
  /** "image/png"…; absent for remote URLs of unknown type. */
  readonly mediaType?: string;
  /** Base64 data (from a data: URL or Anthropic `source.type: base64`). */
  readonly data?: string;
  /** A remote http(s) URL, when the client sent one instead of data. */
  readonly url?: string;
  /** OpenAI `detail` (auto|low|high), kept for OpenAI-kind upstreams. */
  readonly detail?: string;
}

/**
 * A document the client attached (Anthropic `document` block): a PDF as base64, or plain text.
 * Upstreams that take documents get it natively (Anthropic documents, OpenAI file inputs);
 * routes to others are refused before anything is held.
 */
export interface DocumentPart {
  readonly type: 'document';
  readonly source: { readonly type: 'base64'; readonly mediaType: 'application/pdf'; readonly data: string } | { readonly type: 'text'; readonly text: string };
  readonly title?: string;
  /** Anthropic `context`: what the document is, said to the model next to it. */
  readonly context?: string;
}

/** Model reasoning ("thinking"). `signature` must travel back to the upstream unchanged. */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly signature?: string;
}

/** Reasoning the upstream returned encrypted (Anthropic `redacted_thinking`). */
export interface RedactedReasoningPart {
  readonly type: 'redacted_reasoning';
  readonly data: string;
}

export interface ToolCallPart {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The arguments as a JSON text, exactly as produced (not re-serialized). */
  readonly arguments: string;
}

export interface ToolResultPart {
  readonly type: 'tool_result';
  readonly toolCallId: string;
  /** Text and images the tool returned. */
  readonly content: readonly (TextPart | ImagePart)[];
  readonly isError?: boolean;
}

export type UserContentPart = TextPart | ImagePart | DocumentPart | ToolResultPart;
export type AssistantContentPart = TextPart | ReasoningPart | RedactedReasoningPart | ToolCallPart;

/**
 * One conversation turn. Tool results are user-side content (as in Anthropic); an OpenAI
 * `role: "tool"` message decodes into a user message holding one tool_result part, and
 * consecutive ones merge into one user message.
 */
export type ChatMessage =
  | { readonly role: 'user'; readonly content: readonly UserContentPart[] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantContentPart[] };

export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments. */
  readonly parameters: Record<string, unknown>;
  readonly strict?: boolean;
}

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  /** The model must call some tool (OpenAI "required", Anthropic "any"). */
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

/**
 * Structured output the client asked for (OpenAI `response_format` / Responses `text.format` /
 * Anthropic `output_config.format`): any JSON object, or an instance of a JSON schema. The
 * answer is still TEXT content (the JSON); how an upstream is made to produce it is the
 * adapter's business (passed through, native format, or a forced tool turned back into text).
 */
export type ResponseFormat =
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema';
      /** OpenAI requires one; dialects without a name (Anthropic) use `response`. */
      readonly name: string;
      readonly schema: Record<string, unknown>;
      readonly strict?: boolean;
      readonly description?: string;
    };

export interface ChatRequest {
  /** The catalog id the client asked for (after alias resolution: the model's id). */
  readonly model: string;
  /** System / developer instructions, in order. */
  readonly system: readonly TextPart[];
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  /** false when the client forbade parallel calls (OpenAI parallel_tool_calls, Anthropic disable_parallel_tool_use). */
  readonly parallelToolCalls?: boolean;
  /** Output budget INCLUDING reasoning; undefined when the client gave none. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop: readonly string[];
  /** Requested reasoning effort; 'off' disables reasoning. Undefined: the model's default. */
  readonly reasoningEffort?: ReasoningEffort;
  /**
   * True when the effort came from a field that is only a hint (Anthropic `output_config.effort`,
   * sent by coding agents on every request): it is applied where the model can use it and never
   * refuses a request.
   */
  readonly reasoningEffortIsHint?: boolean;
  /** An end-user id for abuse tracking, passed on where the upstream takes one. */
  readonly user?: string;
  /** Whether the CLIENT asked for a stream (upstreams are always streamed). */
  readonly stream: boolean;
  /** OpenAI stream_options.include_usage. */
  readonly includeUsage: boolean;
  /** Structured output; absent for plain text (the common case costs nothing). */
  readonly responseFormat?: ResponseFormat;
  /**
   * What the client's answer object echoes back as sent (Responses `instructions` and
   * `metadata`); the instructions also take part in `system`, which is what upstreams see.
   */
  readonly echo?: { readonly instructions?: string; readonly metadata?: Readonly<Record<string, string>> };
  /**
   * False when the client asked not to be shown the reasoning (Gemini `thinkingConfig.includeThoughts`
   * absent or false): its answer carries no thought parts. Upstreams reason as asked either way.
   */
  readonly showReasoning?: boolean;
}

// ---------------------------------------------------------------- result and stream

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'error';

export interface Usage {
  /** All input tokens, cached ones included. */
  readonly inputTokens: number;
  /** Input tokens read from the prompt cache (billed at the cached price). */
  readonly cachedInputTokens: number;
  /** Input tokens written to the prompt cache (Anthropic cache_creation), included in inputTokens. */
  readonly cacheWriteInputTokens: number;
  /** All output tokens, reasoning included. */
  readonly outputTokens: number;
  /** The reasoning share of outputTokens, when the upstream tells. */
  readonly reasoningTokens: number;
}

export interface Citation {
  readonly url: string;
  readonly title?: string;
  /** Where in the text part (character offsets) the citation applies, when known. */
  readonly startIndex?: number;
  readonly endIndex?: number;
  /** The cited passage, when the upstream gives one. */
  readonly citedText?: string;
}

/**
 * Stream parts, in order. Content blocks are numbered by `index` (one counter across all
 * block kinds, in the order they start). A block starts, receives deltas, ends; blocks may
 * interleave only for parallel tool calls from OpenAI-kind upstreams.
 */
export type StreamPart =
  | { readonly type: 'start'; readonly id: string; readonly model: string }
  | { readonly type: 'text_start'; readonly index: number }
  | { readonly type: 'text_delta'; readonly index: number; readonly text: string }
  | { readonly type: 'text_end'; readonly index: number }
  | { readonly type: 'citation'; readonly index: number; readonly citation: Citation }
  | { readonly type: 'reasoning_start'; readonly index: number }
  | { readonly type: 'reasoning_delta'; readonly index: number; readonly text: string }
  | { readonly type: 'reasoning_signature'; readonly index: number; readonly signature: string }
  | { readonly type: 'reasoning_end'; readonly index: number }
  | { readonly type: 'redacted_reasoning'; readonly index: number; readonly data: string }
  | { readonly type: 'tool_call_start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: 'tool_call_end'; readonly index: number }
  /** Usage as reported so far; the LAST one before finish wins (never summed). */
  | { readonly type: 'usage'; readonly usage: Usage }
  | {
      readonly type: 'finish';
      readonly finishReason: FinishReason;
      /** The upstream's own value ("end_turn", "tool_use", "stop", "length"…). */
      readonly rawFinishReason: string | null;
      /** The stop sequence that ended generation, when the upstream tells. */
      readonly stopSequence?: string | null;
    };

/** A whole response, assembled from the stream (non-streaming clients get this). */
export interface ChatResult {
  readonly id: string;
  readonly model: string;
  readonly content: readonly (TextPart | ReasoningPart | RedactedReasoningPart | ToolCallPart)[];
  /** Citations by content index of the text part they belong to. */
  readonly citations: readonly (Citation & { readonly contentIndex: number })[];
  readonly finishReason: FinishReason;
  readonly rawFinishReason: string | null;
  readonly stopSequence: string | null;
  readonly usage: Usage;
  /** True when usage was counted by the gateway because the upstream reported none. */
  readonly usageEstimated: boolean;
  /** Unix seconds. */
  readonly created: number;
}

export const emptyUsage: Usage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };

/** What a model can do, as the dialects need it for validation (from the catalog). */
export interface ModelCapabilities {
  readonly reasoningEfforts: readonly ReasoningEffort[];
  readonly canDisableReasoning: boolean;
  readonly vision: boolean;
  readonly tools: boolean;
  readonly maxOutputTokens: number;
  /**
   * The upstream produces JSON-schema output natively (catalog `structured_outputs`). Read by
   * Anthropic-kind adapters only (native `output_config.format` instead of a forced tool);
   * OpenAI-kind upstreams always get `response_format` as sent.
   */
  readonly structuredOutputs?: boolean;
}
