// Internal usage and finish reasons in Gemini's vocabulary, shared by the body and the stream.
import type { FinishReason, Usage } from '../../model/chat.js';

/**
 * `usageMetadata`: promptTokenCount counts cached tokens too (cachedContentTokenCount is their
 * share); candidatesTokenCount excludes the thoughts, which thoughtsTokenCount reports beside it;
 * the total is their sum. Zero cached and thought counts are left out, as Google leaves them.
 */
export function encodeUsageMetadata(usage: Usage) {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - usage.reasoningTokens),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens > 0 ? { cachedContentTokenCount: usage.cachedInputTokens } : {}),
    ...(usage.reasoningTokens > 0 ? { thoughtsTokenCount: usage.reasoningTokens } : {}),
  };
}

/** What each Gemini finish reason means in the internal vocabulary (for keeping a Gemini upstream's own value). */
const geminiMeaning: Readonly<Record<string, readonly FinishReason[]>> = {
  STOP: ['stop', 'tool_calls'],
  MAX_TOKENS: ['length'],
  SAFETY: ['content_filter', 'refusal'],
  RECITATION: ['content_filter'],
  BLOCKLIST: ['content_filter'],
  PROHIBITED_CONTENT: ['content_filter', 'refusal'],
  SPII: ['content_filter'],
  IMAGE_SAFETY: ['content_filter'],
  LANGUAGE: ['content_filter', 'error'],
  MALFORMED_FUNCTION_CALL: ['error'],
  UNEXPECTED_TOOL_CALL: ['error'],
  OTHER: ['error', 'stop'],
};

/**
 * Gemini `finishReason`: the upstream's raw value when it is Gemini's and agrees with the
 * normalized reason; otherwise STOP (function calls end with STOP at Gemini too), MAX_TOKENS,
 * SAFETY (a filter or a refusal), OTHER (an error).
 */
export function toGeminiFinishReason(reason: FinishReason, raw: string | null): string {
  if (raw !== null && Object.hasOwn(geminiMeaning, raw) && geminiMeaning[raw]!.includes(reason)) return raw;
  switch (reason) {
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
    case 'refusal':
      return 'SAFETY';
    case 'error':
      return 'OTHER';
  }
}
