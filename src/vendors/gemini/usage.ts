// Gemini `usageMetadata` → Usage. promptTokenCount counts the whole prompt, the cached part
// (cachedContentTokenCount) included; toolUsePromptTokenCount (what a search tool added to the
// prompt) is billed as input too. Output = candidatesTokenCount + thoughtsTokenCount (thoughts
// are billed as output and counted apart), reasoning = thoughtsTokenCount.
import type { Usage } from '../../model/chat.js';
import { countOf, type JsonObject } from '../shared/json.js';

export function usageOf(metadata: JsonObject): Usage {
  const thoughts = countOf(metadata.thoughtsTokenCount);
  return {
    inputTokens: countOf(metadata.promptTokenCount) + countOf(metadata.toolUsePromptTokenCount),
    cachedInputTokens: countOf(metadata.cachedContentTokenCount),
    cacheWriteInputTokens: 0,
    outputTokens: countOf(metadata.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
  };
}
