// Prompts and completions in the shape of the OpenTelemetry GenAI conventions
// (gen_ai.system_instructions, gen_ai.input.messages, gen_ai.output.messages: JSON arrays of
// messages made of typed parts). Recorded only when observability.otlp.capture_content is on.
// Image bytes are never copied into a span (a part names the image's type, or its URL).
import type { AssistantContentPart, ChatRequest, ChatResult, ImagePart, TextPart, UserContentPart } from '../model/chat.js';

type Part = Record<string, unknown>;

function imagePart(image: ImagePart): Part {
  return image.url !== undefined ? { type: 'uri', modality: 'image', uri: image.url } : { type: 'blob', modality: 'image', mime_type: image.mediaType ?? null };
}

function userPart(part: UserContentPart): Part {
  switch (part.type) {
    case 'text':
      return { type: 'text', content: part.text };
    case 'image':
      return imagePart(part);
    case 'document':
      // A PDF's bytes stay out of the span, as an image's do.
      return part.source.type === 'text' ? { type: 'text', content: part.source.text } : { type: 'blob', modality: 'document', mime_type: part.source.mediaType };
    case 'tool_result':
      return { type: 'tool_call_response', id: part.toolCallId, response: part.content.map((item) => (item.type === 'text' ? item.text : imagePart(item))) };
  }
}

function assistantPart(part: AssistantContentPart): Part {
  switch (part.type) {
    case 'text':
      return { type: 'text', content: part.text };
    case 'reasoning':
      return { type: 'reasoning', content: part.text };
    case 'redacted_reasoning':
      // Encrypted by the upstream: nothing readable to record.
      return { type: 'reasoning', content: '[redacted]' };
    case 'tool_call':
      return { type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments };
  }
}

export function systemInstructions(system: readonly TextPart[]): string {
  return JSON.stringify(system.map((part) => ({ type: 'text', content: part.text })));
}

export function inputMessages(request: ChatRequest): string {
  return JSON.stringify(
    request.messages.map((message) =>
      message.role === 'user' ? { role: 'user', parts: message.content.map(userPart) } : { role: 'assistant', parts: message.content.map(assistantPart) },
    ),
  );
}

export function outputMessages(result: ChatResult): string {
  return JSON.stringify([{ role: 'assistant', parts: result.content.map(assistantPart), finish_reason: result.finishReason }]);
}
