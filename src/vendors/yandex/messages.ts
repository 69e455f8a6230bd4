// ChatRequest system + messages → the Foundation Models `messages`: each message carries ONE
// of `text`, `toolCallList` or `toolResultList`.
//   system parts        → one `system` message (joined by a blank line);
//   user text           → a `user` message; its tool results → one `user` message holding a
//                         `toolResultList` (Yandex names each result by its function, not by a
//                         call id: the name is found from the call the id answers);
//   assistant turn      → its text as an `assistant` message, then its calls as an
//                         `assistant` message holding a `toolCallList` (arguments are a JSON
//                         object on this wire, not a text).
// Lossy: images and documents have no slot (YandexGPT reads text only: the catalog gives its
// models no vision, so images are refused before they get here; a document's text is kept);
// reasoning parts are dropped (Yandex keeps its reasoning hidden); an image in a tool result
// becomes "[image omitted]".
import type { ChatMessage, ChatRequest, UserContentPart } from '../../model/chat.js';

export type YandexMessage =
  | { role: 'system' | 'user' | 'assistant'; text: string }
  | { role: 'assistant'; toolCallList: { toolCalls: { functionCall: { name: string; arguments: unknown } }[] } }
  | { role: 'user'; toolResultList: { toolResults: { functionResult: { name: string; content: string } }[] } };

export function toYandexMessages(request: ChatRequest): YandexMessage[] {
  const names = toolNamesById(request.messages);
  const messages: YandexMessage[] = [];
  if (request.system.length > 0) messages.push({ role: 'system', text: request.system.map((part) => part.text).join('\n\n') });
  for (const message of request.messages) {
    if (message.role === 'user') messages.push(...userMessages(message.content, names));
    else messages.push(...assistantMessages(message.content));
  }
  return messages;
}

/** The function each tool call id named, across the conversation (wires that answer calls by name need it). */
export function toolNamesById(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool_call') names.set(part.id, part.name);
  }
  return names;
}

/** A tool's answer as text: its text parts joined; images are not carried. */
export function toolResultText(content: readonly { type: string; text?: string }[]): string {
  return content.map((item) => (item.type === 'text' ? (item.text ?? '') : '[image omitted]')).join('\n\n');
}

/** Arguments as the JSON object this wire wants; a text that is not an object is wrapped, never lost. */
export function argumentsObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Not JSON: kept as the value of one field.
  }
  return { input: text };
}

function userMessages(content: readonly UserContentPart[], names: ReadonlyMap<string, string>): YandexMessage[] {
  const messages: YandexMessage[] = [];
  const results = content.flatMap((part) =>
    part.type === 'tool_result' ? [{ functionResult: { name: names.get(part.toolCallId) ?? part.toolCallId, content: toolResultText(part.content) } }] : [],
  );
  if (results.length > 0) messages.push({ role: 'user', toolResultList: { toolResults: results } });
  const texts = content.flatMap((part) => {
    if (part.type === 'text') return [part.text];
    if (part.type === 'document') return [part.source.type === 'text' ? [part.title, part.context, part.source.text].filter(Boolean).join('\n\n') : '[PDF document omitted]'];
    return [];
  });
  if (texts.length > 0) messages.push({ role: 'user', text: texts.join('\n\n') });
  return messages;
}

function assistantMessages(content: Extract<ChatMessage, { role: 'assistant' }>['content']): YandexMessage[] {
  const messages: YandexMessage[] = [];
  const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  if (text !== '') messages.push({ role: 'assistant', text });
  const calls = content.flatMap((part) => (part.type === 'tool_call' ? [{ functionCall: { name: part.name, arguments: argumentsObject(part.arguments) } }] : []));
  if (calls.length > 0) messages.push({ role: 'assistant', toolCallList: { toolCalls: calls } });
  return messages;
}
