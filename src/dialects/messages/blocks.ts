// Internal usage and citations in Anthropic's vocabulary, shared by the response body and the stream.
import type { Citation, Usage } from '../../model/chat.js';
import { parseBoundedJson } from '../../util/json-depth.js';

/** `input_tokens` excludes cache reads and writes; Anthropic reports those beside it. */
export function encodeMessagesUsage(usage: Usage) {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteInputTokens),
    cache_creation_input_tokens: usage.cacheWriteInputTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
  };
}

/**
 * A citation as a web search result location. Anthropic citations apply to their whole text
 * block; offsets inside the block (from OpenAI-kind upstreams) have no slot and are dropped.
 * `encrypted_index` is only meaningful to Anthropic itself: empty.
 */
export function encodeCitation(citation: Citation) {
  return { type: 'web_search_result_location' as const, url: citation.url, title: citation.title ?? null, cited_text: citation.citedText ?? '', encrypted_index: '' };
}

/** tool_use.input is an object; arguments that are not a JSON object (or nest too deep to encode) become {}. */
export function toolInput(args: string): Record<string, unknown> {
  const parsed = parseBoundedJson(args);
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
