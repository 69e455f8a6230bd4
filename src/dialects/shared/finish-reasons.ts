// The internal FinishReason in each client dialect's vocabulary (wire-formats §9, "Stop /
// finish mapping"). The Responses dialect maps to status/incomplete_details itself.
import type { FinishReason } from '../../model/chat.js';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** OpenAI Chat `finish_reason`. A refusal or an upstream error that still ended the message reads as a normal stop. */
export function toChatFinishReason(reason: FinishReason): ChatFinishReason {
  switch (reason) {
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'stop':
    case 'refusal':
    case 'error':
      return 'stop';
  }
}

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

/** What each Anthropic stop reason means in the internal vocabulary. */
const anthropicMeaning: Record<AnthropicStopReason, readonly FinishReason[]> = {
  end_turn: ['stop', 'error'],
  stop_sequence: ['stop'],
  pause_turn: ['stop'],
  max_tokens: ['length'],
  model_context_window_exceeded: ['length'],
  tool_use: ['tool_calls'],
  refusal: ['refusal', 'content_filter'],
};

/**
 * Anthropic `stop_reason`. When the upstream was Anthropic and its raw value agrees with the
 * normalized one, the raw value is kept (so `pause_turn` and `model_context_window_exceeded`
 * survive); otherwise the normalized reason is mapped, `stop` becoming `stop_sequence` when a
 * stop sequence fired.
 */
export function toAnthropicStopReason(reason: FinishReason, rawReason: string | null, stopSequence: string | null): AnthropicStopReason {
  if (rawReason !== null && Object.hasOwn(anthropicMeaning, rawReason)) {
    const raw = rawReason as AnthropicStopReason;
    if (anthropicMeaning[raw].includes(reason) && (raw !== 'stop_sequence' || stopSequence !== null)) return raw;
  }
  switch (reason) {
    case 'stop':
      return stopSequence !== null ? 'stop_sequence' : 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'refusal':
    case 'content_filter':
      return 'refusal';
    case 'error':
      return 'end_turn';
  }
}
