// Chat Completions `usage` → Usage (wire-formats §9 "Usage mapping"). prompt_tokens already
// includes cached and cache-written tokens. Beyond OpenAI's own fields: DeepSeek reports cache
// reads as `prompt_cache_hit_tokens`, OpenRouter cache writes as `prompt_tokens_details.cache_write_tokens`.
import type { Usage } from '../../model/chat.js';
import { countOf, objectOf, type JsonObject } from '../shared/json.js';

export function usageFromChatCompletions(usage: JsonObject): Usage {
  const promptDetails = objectOf(usage.prompt_tokens_details) ?? {};
  const completionDetails = objectOf(usage.completion_tokens_details) ?? {};
  return {
    inputTokens: countOf(usage.prompt_tokens),
    cachedInputTokens: countOf(promptDetails.cached_tokens ?? usage.prompt_cache_hit_tokens),
    cacheWriteInputTokens: countOf(promptDetails.cache_write_tokens),
    outputTokens: countOf(usage.completion_tokens),
    reasoningTokens: countOf(completionDetails.reasoning_tokens),
  };
}
