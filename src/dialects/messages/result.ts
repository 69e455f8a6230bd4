// Encodes a whole ChatResult as an Anthropic Messages response (`type: "message"`).
import type { ChatRequest, ChatResult } from '../../model/chat.js';
import { toAnthropicStopReason } from '../shared/finish-reasons.js';
import { withIdPrefix } from '../shared/ids.js';
import { encodeCitation, encodeMessagesUsage, toolInput } from './blocks.js';

export const messageIdPrefix = 'msg_';

export function encodeMessagesResult(result: ChatResult, request: ChatRequest) {
  const stopReason = toAnthropicStopReason(result.finishReason, result.rawFinishReason, result.stopSequence);
  return {
    id: withIdPrefix(result.id, messageIdPrefix),
    type: 'message' as const,
    role: 'assistant' as const,
    model: request.model,
    content: result.content.map((part, position) => {
      switch (part.type) {
        case 'text': {
          const citations = result.citations.filter((c) => c.contentIndex === position).map(encodeCitation);
          // No `citations` key when there are none: Anthropic's own bodies omit it, and clients
          // that validate the body reject `null` (issue 14 item 2).
          return citations.length > 0 ? { type: 'text' as const, text: part.text, citations } : { type: 'text' as const, text: part.text };
        }
        case 'reasoning':
          return { type: 'thinking' as const, thinking: part.text, signature: part.signature ?? '' };
        case 'redacted_reasoning':
          return { type: 'redacted_thinking' as const, data: part.data };
        case 'tool_call':
          return { type: 'tool_use' as const, id: part.id, name: part.name, input: toolInput(part.arguments) };
      }
    }),
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? result.stopSequence : null,
    usage: encodeMessagesUsage(result.usage),
  };
}

export function encodeCountTokens(inputTokens: number): { input_tokens: number } {
  return { input_tokens: inputTokens };
}
