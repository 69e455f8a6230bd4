// Building blocks of the Responses wire objects, shared by the non-streaming result and the
// stream encoder so that `response.completed` carries exactly what a non-streaming client
// would have received (same item ids, same echo fields, same usage).
import type { ChatRequest, Citation, FinishReason, ReasoningPart, RedactedReasoningPart, ResponseFormat, ToolChoice, Usage } from '../../model/chat.js';

/**
 * Redacted reasoning (Anthropic `redacted_thinking`) travels in `encrypted_content` behind
 * this prefix. A colon never occurs in base64 signatures or OpenAI encrypted reasoning, so
 * the prefix cannot be mistaken for a real signature.
 */
export const redactedPrefix = 'redacted:';

export function encryptedContentOf(part: ReasoningPart | RedactedReasoningPart): string | null {
  if (part.type === 'redacted_reasoning') return redactedPrefix + part.data;
  return part.signature ?? null;
}

/** Response ids start with "resp_"; an upstream id that does not is prefixed, not replaced. */
export function responseIdOf(id: string): string {
  return id.startsWith('resp_') ? id : `resp_${id}`;
}

/** Item ids are derived from the response id and the output position, so they are stable. */
export function itemIdOf(kind: 'msg' | 'rs' | 'fc', responseId: string, outputIndex: number): string {
  return `${kind}_${responseId.slice('resp_'.length)}_${outputIndex}`;
}

export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

/** Whether a citation's span is known as soon as it arrives (else it covers the whole text). */
export function hasKnownSpan(citation: Citation): boolean {
  return citation.endIndex !== undefined;
}

export function urlCitationOf(citation: Citation, textLength: number): UrlCitation {
  return {
    type: 'url_citation',
    url: citation.url,
    title: citation.title ?? '',
    start_index: citation.startIndex ?? 0,
    end_index: citation.endIndex ?? textLength,
  };
}

/**
 * Annotations in the order the stream announces them: citations with a known span at once,
 * the others when their text is complete (their span is the whole text).
 */
export function orderedAnnotations(citations: readonly Citation[], textLength: number): UrlCitation[] {
  const known = citations.filter(hasKnownSpan);
  const late = citations.filter((c) => !hasKnownSpan(c));
  return [...known, ...late].map((c) => urlCitationOf(c, textLength));
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export function outputTextPart(text: string, annotations: readonly UrlCitation[]) {
  return { type: 'output_text' as const, text, annotations: [...annotations], logprobs: [] as never[] };
}

export function messageItem(id: string, status: ItemStatus, content: ReturnType<typeof outputTextPart>[]) {
  return { id, type: 'message' as const, status, role: 'assistant' as const, content };
}

export function reasoningItem(id: string, text: string, encryptedContent: string | null) {
  return {
    id,
    type: 'reasoning' as const,
    summary: text ? [{ type: 'summary_text' as const, text }] : [],
    encrypted_content: encryptedContent,
  };
}

export function functionCallItem(id: string, call: { id: string; name: string; arguments: string }, status: ItemStatus) {
  return { id, type: 'function_call' as const, call_id: call.id, name: call.name, arguments: call.arguments, status };
}

export function encodeUsage(usage: Usage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens, cache_write_tokens: usage.cacheWriteInputTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function encodeToolChoice(choice: ToolChoice | undefined): string | { type: 'function'; name: string } {
  if (!choice) return 'auto';
  return choice.type === 'tool' ? { type: 'function', name: choice.name } : choice.type;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseError {
  code: string;
  message: string;
}

/** How a finish reason ends a response: status, incomplete_details and error. */
export function terminalStateOf(finishReason: FinishReason): {
  status: Exclude<ResponseStatus, 'in_progress'>;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  error: ResponseError | null;
} {
  switch (finishReason) {
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, error: null };
    case 'content_filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' }, error: null };
    case 'error':
      return { status: 'failed', incomplete_details: null, error: { code: 'server_error', message: 'The model ended the response with an error.' } };
    default:
      return { status: 'completed', incomplete_details: null, error: null };
  }
}

/** The in-stream error code for the pipeline's error type (`api_error` | `invalid_request_error` | …). */
export function errorCodeOf(type: string): string {
  return type === 'invalid_request_error' ? 'invalid_prompt' : type === 'rate_limit_error' ? 'rate_limit_exceeded' : 'server_error';
}

/** `text.format` as the request gave it (OpenAI echoes it; a json_schema format with its strict flag). */
function encodeTextFormat(format: ResponseFormat | undefined): Record<string, unknown> {
  if (format === undefined) return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema,
    strict: format.strict ?? null,
    ...(format.description !== undefined ? { description: format.description } : {}),
  };
}

/**
 * The Response object with every field the SDK types expect, echoing the request.
 * The endpoint is stateless: `store` is always false and nothing refers to earlier responses.
 */
export function responseObject(request: ChatRequest, id: string, createdAt: number) {
  return {
    id,
    object: 'response' as const,
    created_at: createdAt,
    status: 'in_progress' as ResponseStatus,
    model: request.model,
    error: null as ResponseError | null,
    incomplete_details: null as { reason: string } | null,
    instructions: request.echo?.instructions ?? null,
    metadata: { ...request.echo?.metadata } as Record<string, string>,
    output: [] as unknown[],
    parallel_tool_calls: request.parallelToolCalls ?? true,
    temperature: request.temperature ?? null,
    top_p: request.topP ?? null,
    tool_choice: encodeToolChoice(request.toolChoice),
    tools: request.tools.map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.parameters,
      strict: tool.strict ?? null,
    })),
    max_output_tokens: request.maxOutputTokens ?? null,
    previous_response_id: null,
    reasoning: { effort: request.reasoningEffort ?? null, summary: null },
    store: false,
    text: { format: encodeTextFormat(request.responseFormat) },
    truncation: 'disabled' as const,
    usage: null as ReturnType<typeof encodeUsage> | null,
    ...(request.user !== undefined ? { user: request.user } : {}),
  };
}
