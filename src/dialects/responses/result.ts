// ChatResult → the Responses API `response` object for non-streaming clients. Every content
// part becomes one output item at the same position (a text part is one `message` item with
// one `output_text` part), which is also the order and numbering the stream encoder uses.
import type { ChatRequest, ChatResult } from '../../model/chat.js';
import {
  encodeUsage,
  encryptedContentOf,
  functionCallItem,
  itemIdOf,
  messageItem,
  orderedAnnotations,
  outputTextPart,
  reasoningItem,
  responseIdOf,
  responseObject,
  terminalStateOf,
} from './items.js';

export function encodeResponsesResult(result: ChatResult, request: ChatRequest) {
  const id = responseIdOf(result.id);
  const output = result.content.map((part, position) => {
    switch (part.type) {
      case 'text': {
        const citations = result.citations.filter((c) => c.contentIndex === position);
        return messageItem(itemIdOf('msg', id, position), 'completed', [outputTextPart(part.text, orderedAnnotations(citations, part.text.length))]);
      }
      case 'reasoning':
        return reasoningItem(itemIdOf('rs', id, position), part.text, encryptedContentOf(part));
      case 'redacted_reasoning':
        return reasoningItem(itemIdOf('rs', id, position), '', encryptedContentOf(part));
      case 'tool_call':
        return functionCallItem(itemIdOf('fc', id, position), part, 'completed');
    }
  });
  return {
    ...responseObject(request, id, result.created),
    ...terminalStateOf(result.finishReason),
    output,
    usage: encodeUsage(result.usage),
  };
}
