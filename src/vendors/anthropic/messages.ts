// ChatRequest messages → Anthropic `messages` (wire-formats §2 "Input blocks", §9 "Roles").
// Anthropic wants alternating roles, so consecutive same-role turns merge; in every user
// message the tool_result blocks come first (Anthropic refuses text before them); empty text
// blocks are dropped (Anthropic refuses them) and a turn left empty is skipped.
// Lossy, where Anthropic has no slot:
//   - reasoning WITHOUT a signature (produced by a non-Anthropic upstream, or sent by a client
//     that lost it) is dropped: Anthropic refuses thinking blocks it did not sign;
//   - tool-call arguments that are not a JSON object (cut by max_tokens, or plain garbage)
//     go up as `{}`: `input` must be an object, and the call's id must still pair with its result;
//   - an image's OpenAI `detail` has no Anthropic equivalent.
import type { AssistantContentPart, ChatMessage, DocumentPart, ImagePart, TextPart, UserContentPart } from '../../model/chat.js';
import { mediaTypeOf, parseDataUrl } from '../shared/images.js';
import { parseBoundedJson } from '../../util/json-depth.js';
import { alternatingTurns } from '../shared/block-turns.js';
import { isObject, type JsonObject } from '../shared/json.js';

export interface CacheControl {
  readonly type: 'ephemeral';
}

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  readonly cache_control?: CacheControl;
}

export interface ImageBlock {
  readonly type: 'image';
  readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string } | { readonly type: 'url'; readonly url: string };
  readonly cache_control?: CacheControl;
}

export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: readonly (TextBlock | ImageBlock)[];
  readonly is_error?: true;
  readonly cache_control?: CacheControl;
}

export interface DocumentBlock {
  readonly type: 'document';
  readonly source: { readonly type: 'base64'; readonly media_type: 'application/pdf'; readonly data: string } | { readonly type: 'text'; readonly media_type: 'text/plain'; readonly data: string };
  readonly title?: string;
  readonly context?: string;
  readonly cache_control?: CacheControl;
}

export type UserBlock = TextBlock | ImageBlock | DocumentBlock | ToolResultBlock;

export type AssistantBlock =
  | TextBlock
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: JsonObject };

export type AnthropicMessage =
  | { readonly role: 'user'; readonly content: readonly UserBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantBlock[] };

export function toAnthropicMessages(messages: readonly ChatMessage[]): AnthropicMessage[] {
  return alternatingTurns<UserBlock, AssistantBlock>(messages, { user: userBlocks, assistant: assistantBlocks, isToolResult: (block) => block.type === 'tool_result' });
}


function userBlocks(parts: readonly UserContentPart[]): UserBlock[] {
  return parts.flatMap((part): UserBlock[] => {
    if (part.type === 'document') return [documentBlock(part)];
    if (part.type !== 'tool_result') return mediaBlocks([part]);
    const content = mediaBlocks(part.content);
    return [
      {
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        ...(content.length > 0 ? { content } : {}),
        ...(part.isError ? { is_error: true as const } : {}),
      },
    ];
  });
}

function mediaBlocks(parts: readonly (TextPart | ImagePart)[]): (TextBlock | ImageBlock)[] {
  return parts.flatMap((part): (TextBlock | ImageBlock)[] => {
    if (part.type === 'text') return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    const image = imageBlock(part);
    return image ? [image] : [];
  });
}

/** Documents go up as they came: Anthropic takes PDFs and plain text natively. */
function documentBlock(document: DocumentPart): DocumentBlock {
  const source = document.source;
  return {
    type: 'document',
    source: source.type === 'base64' ? { type: 'base64', media_type: source.mediaType, data: source.data } : { type: 'text', media_type: 'text/plain', data: source.text },
    ...(document.title !== undefined ? { title: document.title } : {}),
    ...(document.context !== undefined ? { context: document.context } : {}),
  };
}

function imageBlock(image: ImagePart): ImageBlock | undefined {
  if (image.data !== undefined) return { type: 'image', source: { type: 'base64', media_type: mediaTypeOf(image), data: image.data } };
  if (image.url === undefined) return undefined;
  const inline = parseDataUrl(image.url);
  if (inline) return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } };
  return { type: 'image', source: { type: 'url', url: image.url } };
}

function assistantBlocks(parts: readonly AssistantContentPart[]): AssistantBlock[] {
  return parts.flatMap((part): AssistantBlock[] => {
    switch (part.type) {
      case 'text':
        return part.text === '' ? [] : [{ type: 'text', text: part.text }];
      case 'reasoning':
        return part.signature ? [{ type: 'thinking', thinking: part.text, signature: part.signature }] : [];
      case 'redacted_reasoning':
        return [{ type: 'redacted_thinking', data: part.data }];
      case 'tool_call':
        return [{ type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.arguments) }];
    }
  });
}

/** Arguments that are not a JSON object (or nest too deep to be sent on: JSON.stringify recurses) become {}. */
function toolInput(text: string): JsonObject {
  const input = parseBoundedJson(text);
  return isObject(input) ? input : {};
}
