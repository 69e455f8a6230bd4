// Chat Completions `finish_reason` → FinishReason (the raw value travels next to it).
import type { FinishReason } from '../../model/chat.js';

export interface FinishFacts {
  /** Tool calls were streamed (some compatible servers say "stop" after them). */
  readonly sawToolCalls: boolean;
  /** The text came as `refusal` deltas (OpenAI says "stop" after a refusal). */
  readonly sawRefusal: boolean;
}

export function finishReasonOf(raw: string | null, facts: FinishFacts): FinishReason {
  switch (raw) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    case 'error': // OpenRouter, when the provider behind it failed midway
      return 'error';
    default:
      // "stop", null, and the odd values of compatible servers ("eos", "end_turn"…).
      // Tool calls that were made must never read as a plain stop (DESIGN.md §8).
      if (facts.sawToolCalls) return 'tool_calls';
      return facts.sawRefusal ? 'refusal' : 'stop';
  }
}
