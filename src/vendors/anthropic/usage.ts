// Anthropic usage → Usage (wire-formats §9 "Usage mapping"). `input_tokens` excludes cache
// reads and writes, our inputTokens includes them. In a stream, message_start holds the input
// side and message_delta the output (and, when present, updated input/cache totals): each
// field present overwrites, as the SDKs do.
import type { Usage } from '../../model/chat.js';
import { objectOf, type JsonObject } from '../shared/json.js';

export interface UsageCounts {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  readonly thinking: number;
}

export const noCounts: UsageCounts = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, thinking: 0 };

export function mergeCounts(previous: UsageCounts, usage: JsonObject): UsageCounts {
  const pick = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback);
  return {
    input: pick(usage.input_tokens, previous.input),
    cacheRead: pick(usage.cache_read_input_tokens, previous.cacheRead),
    cacheWrite: pick(usage.cache_creation_input_tokens, previous.cacheWrite),
    output: pick(usage.output_tokens, previous.output),
    thinking: pick(objectOf(usage.output_tokens_details)?.thinking_tokens, previous.thinking),
  };
}

export function usageOf(counts: UsageCounts): Usage {
  return {
    inputTokens: counts.input + counts.cacheRead + counts.cacheWrite,
    cachedInputTokens: counts.cacheRead,
    cacheWriteInputTokens: counts.cacheWrite,
    outputTokens: counts.output,
    reasoningTokens: counts.thinking,
  };
}
