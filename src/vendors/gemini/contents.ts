// ChatRequest messages → Gemini `contents` (roles `user` and `model`). Consecutive turns of one
// role merge; in a user turn the functionResponse parts come first (they answer the calls of
// the model turn before, in order). Parts:
//   text → {text}; image → {inlineData} (base64 or a data: URL) or {fileData} (a remote URL);
//   PDF document → {inlineData: application/pdf}; text document → {text};
//   tool call → {functionCall: {name, args}}; tool result → {functionResponse: {name, response}}
//     whose `name` is the name of the call it answers (found by id in the conversation);
//   reasoning → Gemini's thought signatures (thought-signature.ts).
// Lossy, where Gemini has no slot:
//   - tool-call ids: Gemini pairs calls and responses by name and order, so ids stay here;
//   - tool-call arguments that are not a JSON object go up as {} (`args` must be an object);
//   - a tool result is `{result: text}` (`{error: text}` when it failed); its images follow as inlineData;
//   - reasoning text without a signature (another upstream's, or summaries) is not sent back;
//   - an image's OpenAI `detail`.
import type { AssistantContentPart, ChatMessage, DocumentPart, ImagePart, TextPart, ToolResultPart, UserContentPart } from '../../model/chat.js';
import { parseBoundedJson } from '../../util/json-depth.js';
import { mediaTypeOf, parseDataUrl } from '../shared/images.js';
import { isObject, type JsonObject } from '../shared/json.js';
import { assistantParts } from './thought-signature.js';

export type GeminiPart = JsonObject;

export interface GeminiContent {
  readonly role: 'user' | 'model';
  readonly parts: GeminiPart[];
}

export function toGeminiContents(messages: readonly ChatMessage[], options: { readonly needsSignatures: boolean }): GeminiContent[] {
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool_call') toolNames.set(part.id, part.name);
  }
  const merged: GeminiContent[] = [];
  for (const message of messages) {
    const role = message.role === 'user' ? 'user' : 'model';
    const parts = message.role === 'user' ? userParts(message.content, toolNames) : assistantParts(message.content as readonly AssistantContentPart[], options.needsSignatures);
    if (parts.length === 0) continue;
    const last = merged.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else merged.push({ role, parts: [...parts] });
  }
  for (const content of merged) {
    if (content.role !== 'user') continue;
    const responses = content.parts.filter((part) => part.functionResponse !== undefined);
    if (responses.length > 0) content.parts.splice(0, content.parts.length, ...responses, ...content.parts.filter((part) => part.functionResponse === undefined));
  }
  return merged;
}

function userParts(parts: readonly UserContentPart[], toolNames: ReadonlyMap<string, string>): GeminiPart[] {
  return parts.flatMap((part): GeminiPart[] => {
    switch (part.type) {
      case 'text':
        return part.text === '' ? [] : [{ text: part.text }];
      case 'image':
        return imageParts(part);
      case 'document':
        return [documentPart(part)];
      case 'tool_result':
        return toolResultParts(part, toolNames);
    }
  });
}

function toolResultParts(result: ToolResultPart, toolNames: ReadonlyMap<string, string>): GeminiPart[] {
  const text = result.content.filter((part): part is TextPart => part.type === 'text').map((part) => part.text).join('\n');
  const response = result.isError ? { error: text } : { result: text };
  const images = result.content.filter((part): part is ImagePart => part.type === 'image').flatMap(imageParts);
  // A result whose call is not in the conversation keeps its id as the name: Gemini then says what is wrong.
  return [{ functionResponse: { name: toolNames.get(result.toolCallId) ?? result.toolCallId, response } }, ...images];
}

function imageParts(image: ImagePart): GeminiPart[] {
  if (image.data !== undefined) return [{ inlineData: { mimeType: mediaTypeOf(image), data: image.data } }];
  if (image.url === undefined) return [];
  const inline = parseDataUrl(image.url);
  if (inline) return [{ inlineData: { mimeType: inline.mediaType, data: inline.data } }];
  return [{ fileData: { mimeType: image.mediaType ?? mediaTypeOfUrl(image.url), fileUri: image.url } }];
}

/** The image type a URL's extension says; JPEG (the web's commonest) when it says none. */
function mediaTypeOfUrl(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const types: Record<string, string> = { png: 'image/png', webp: 'image/webp', gif: 'image/gif', heic: 'image/heic', heif: 'image/heif' };
  return (extension && types[extension]) || 'image/jpeg';
}

function documentPart(document: DocumentPart): GeminiPart {
  const source = document.source;
  if (source.type === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const heading = [document.title, document.context].filter((line) => line !== undefined && line !== '').join('\n');
  return { text: heading ? `${heading}\n\n${source.text}` : source.text };
}

/** Arguments that are not a JSON object (or nest too deep to be sent on) become {}. */
export function toolArgs(text: string): JsonObject {
  const value = parseBoundedJson(text);
  return isObject(value) ? value : {};
}
