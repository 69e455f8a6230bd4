// Anthropic `stop_reason` → FinishReason (wire-formats §9 "Stop / finish mapping"); the raw
// value travels next to it, so `pause_turn` stays visible to Anthropic-dialect clients.
import type { FinishReason } from '../../model/chat.js';

export function finishReasonOf(stopReason: string | null): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'refusal';
    default:
      // end_turn, stop_sequence, pause_turn (the caller re-sends to continue), and unknown values.
      return 'stop';
  }
}
