// ChatRequest system + messages → Chat Completions `messages` (wire-formats §1, §9 "Roles").
//   system parts          → one `system` message;
//   user turn             → its tool_result parts first, each its own `role: "tool"` message
//                           (OpenAI wants them right after the assistant's tool_calls), then
//                           one `user` message with the remaining text and image parts;
//   document              → a PDF as a `file` part (file_data: a data: URL), plain text as text;
//   assistant turn        → `content` (its text parts joined) + `tool_calls`.
// Lossy, because Chat Completions has no slot for them:
//   - reasoning and redacted reasoning parts are dropped (OpenAI keeps its own reasoning
//     server-side); openai-compatible servers that take `reasoning_content` get the
//     reasoning TEXT back (option below), never a signature or redacted data;
//   - images inside tool results become the text "[image omitted]" (tool messages are text only);
//   - a tool result's `isError` flag has no field: the tool's own text must say so;
//   - an assistant turn left with nothing to send (only reasoning) is skipped.
import type { ChatMessage, ChatRequest, DocumentPart, ImagePart, TextPart, ToolResultPart } from '../../model/chat.js';
import { imageUrlOf } from '../shared/images.js';

export interface MessageOptions {
  /** Send assistant reasoning text back as `reasoning_content` (DeepSeek, vLLM). */
  readonly reasoningContent: boolean;
  /**
   * Join several text parts into one string (separated by a blank line) instead of sending a
   * content-part array: many compatible servers take only string content for system, tool
   * and text-only user messages.
   */
  readonly textAsString: boolean;
}

type TextContent = string | { type: 'text'; text: string }[];

/** A PDF on its way to a `file` content part. */
interface FilePart {
  readonly type: 'file';
  readonly filename: string;
  readonly dataUrl: string;
}

type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'file'; file: { filename: string; file_data: string } };

export type ChatCompletionsMessage =
  | { role: 'system'; content: TextContent }
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'tool'; tool_call_id: string; content: TextContent }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
      reasoning_content?: string;
    };

export function toChatCompletionsMessages(request: ChatRequest, options: MessageOptions): ChatCompletionsMessage[] {
  const messages: ChatCompletionsMessage[] = [];
  if (request.system.length > 0) messages.push({ role: 'system', content: textContent(request.system, options) });
  for (const message of request.messages) {
    if (message.role === 'user') messages.push(...userMessages(message.content, options));
    else {
      const assistant = assistantMessage(message.content, options);
      if (assistant) messages.push(assistant);
    }
  }
  return messages;
}

/** One text part → a string; several → content parts, or one joined string. */
function textContent(parts: readonly TextPart[], options: MessageOptions): TextContent {
  if (parts.length === 1) return parts[0].text;
  if (options.textAsString) return parts.map((part) => part.text).join('\n\n');
  return parts.map((part) => ({ type: 'text', text: part.text }));
}

function userMessages(content: Extract<ChatMessage, { role: 'user' }>['content'], options: MessageOptions): ChatCompletionsMessage[] {
  const messages: ChatCompletionsMessage[] = [];
  const rest: (TextPart | ImagePart | FilePart)[] = [];
  for (const part of content) {
    if (part.type === 'tool_result') messages.push(toolMessage(part, options));
    else if (part.type === 'document') rest.push(...documentParts(part));
    else rest.push(part);
  }
  if (rest.length > 0) messages.push({ role: 'user', content: userContent(rest, options) });
  return messages;
}

/**
 * A document as Chat Completions takes it: a PDF as a file input (a data: URL, named by its
 * title); plain text as a text part. Its title (for text) and context go before it as text.
 */
function documentParts(document: DocumentPart): (TextPart | FilePart)[] {
  const source = document.source;
  const lead = [source.type === 'text' ? document.title : undefined, document.context].filter((line) => line !== undefined && line !== '');
  const parts: (TextPart | FilePart)[] = lead.length > 0 ? [{ type: 'text', text: lead.join('\n\n') }] : [];
  if (source.type === 'text') parts.push({ type: 'text', text: source.text });
  else parts.push({ type: 'file', filename: pdfFilename(document.title), dataUrl: `data:${source.mediaType};base64,${source.data}` });
  return parts;
}

function pdfFilename(title: string | undefined): string {
  if (title === undefined || title === '') return 'document.pdf';
  return title.toLowerCase().endsWith('.pdf') ? title : `${title}.pdf`;
}

function userContent(parts: readonly (TextPart | ImagePart | FilePart)[], options: MessageOptions): string | ContentPart[] {
  const texts = parts.filter((part): part is TextPart => part.type === 'text');
  if (texts.length === parts.length) return textContent(texts, options);
  const content: ContentPart[] = [];
  for (const part of parts) {
    if (part.type === 'text') {
      content.push({ type: 'text', text: part.text });
      continue;
    }
    if (part.type === 'file') {
      content.push({ type: 'file', file: { filename: part.filename, file_data: part.dataUrl } });
      continue;
    }
    const url = imageUrlOf(part);
    if (url === undefined) continue; // an image with neither data nor URL carries nothing
    content.push({ type: 'image_url', image_url: part.detail !== undefined ? { url, detail: part.detail } : { url } });
  }
  return content;
}

function toolMessage(part: ToolResultPart, options: MessageOptions): ChatCompletionsMessage {
  const texts: TextPart[] = part.content.map((item) => (item.type === 'text' ? item : { type: 'text', text: '[image omitted]' }));
  return { role: 'tool', tool_call_id: part.toolCallId, content: texts.length === 0 ? '' : textContent(texts, options) };
}

function assistantMessage(content: Extract<ChatMessage, { role: 'assistant' }>['content'], options: MessageOptions): ChatCompletionsMessage | undefined {
  // Joined without a separator: that is how a Chat client saw these parts streamed, as one content.
  const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const toolCalls = content.flatMap((part) =>
    part.type === 'tool_call' ? [{ id: part.id, type: 'function' as const, function: { name: part.name, arguments: part.arguments } }] : [],
  );
  const reasoning = options.reasoningContent ? content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('\n\n') : '';
  if (text === '' && toolCalls.length === 0 && reasoning === '') return undefined;
  return {
    role: 'assistant',
    // null next to tool calls, as OpenAI itself answers; '' would be an empty text part to some servers.
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
  };
}
