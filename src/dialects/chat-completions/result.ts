// Encodes a whole ChatResult as a Chat Completions response (`object: "chat.completion"`).
// The assistant message carries the joined text, the tool calls, url_citation annotations,
// and this gateway's reasoning extension (reasoning_content + reasoning_details, see
// reasoning-details.ts), which a client sends back unchanged in its next request.
import type { ChatRequest, ChatResult } from '../../model/chat.js';
import { toChatFinishReason } from '../shared/finish-reasons.js';
import { withIdPrefix } from '../shared/ids.js';
import { toAnnotation, type UrlCitationAnnotation } from './annotations.js';
import { toReasoningDetail, type ReasoningDetail } from './reasoning-details.js';
import { encodeChatUsage } from './usage.js';

export const chatCompletionIdPrefix = 'chatcmpl-';

export function encodeChatCompletionsResult(result: ChatResult, request: ChatRequest) {
  let text: string | null = null;
  const textSpans = new Map<number, { start: number; length: number }>();
  const reasoningDetails: ReasoningDetail[] = [];
  let reasoningText: string | null = null;
  const toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];

  result.content.forEach((part, position) => {
    switch (part.type) {
      case 'text':
        textSpans.set(position, { start: text?.length ?? 0, length: part.text.length });
        text = (text ?? '') + part.text;
        break;
      case 'reasoning':
        reasoningText = (reasoningText ?? '') + part.text;
        reasoningDetails.push(toReasoningDetail(part));
        break;
      case 'redacted_reasoning':
        reasoningDetails.push(toReasoningDetail(part));
        break;
      case 'tool_call':
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
    }
  });

  const annotations: UrlCitationAnnotation[] = result.citations.map((citation) => {
    const span = textSpans.get(citation.contentIndex) ?? { start: 0, length: 0 };
    return toAnnotation(citation, span.start, span.length);
  });

  return {
    id: withIdPrefix(result.id, chatCompletionIdPrefix),
    object: 'chat.completion' as const,
    created: result.created,
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          annotations,
          ...(reasoningText !== null ? { reasoning_content: reasoningText } : {}),
          ...(reasoningDetails.length > 0 ? { reasoning_details: reasoningDetails } : {}),
        },
        finish_reason: toChatFinishReason(result.finishReason),
        logprobs: null,
      },
    ],
    usage: encodeChatUsage(result.usage),
  };
}
