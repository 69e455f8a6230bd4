// Reasoning text in a compatible server's delta: `reasoning_content` (DeepSeek, vLLM, SGLang)
// or `reasoning` (OpenRouter, Ollama, newer vLLM). Servers that send both send the same text:
// the first non-empty one is taken, never both.
import { stringOf, type JsonObject } from '../shared/json.js';

export function compatibleReasoningOf(delta: JsonObject): string | undefined {
  return stringOf(delta.reasoning_content) || stringOf(delta.reasoning) || undefined;
}
