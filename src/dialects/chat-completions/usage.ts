// Internal Usage → Chat Completions `usage` (wire-formats §9, usage mapping): prompt_tokens
// counts all input, cached and cache-written tokens included.
import type { Usage } from '../../model/chat.js';

export function encodeChatUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens, cache_write_tokens: usage.cacheWriteInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
