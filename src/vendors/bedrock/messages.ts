// ChatRequest messages → Bedrock Converse `messages` (ContentBlock union: text, image,
// document, toolUse, toolResult, reasoningContent, cachePoint). Converse wants alternating
// roles starting with a user turn, so consecutive same-role turns merge; in every user turn
// the toolResult blocks come first (Claude refuses text before them); empty text blocks are
// dropped (Converse refuses them) and a turn left empty is skipped.
// Lossy, where Converse has no slot:
//   - images go up as bytes only (Converse takes bytes or an S3 location, never an http URL):
//     a remote image URL is refused before anything is sent (buildRequest throws a 400);
//   - reasoning WITHOUT a signature (from another upstream) is dropped: Claude refuses
//     reasoning it did not sign;
//   - tool-call arguments that are not a JSON object go up as `{}` (toolUse.input is a document
//     object, and the call's id must still pair with its result);
//   - an image's OpenAI `detail` has no Converse equivalent;
//   - a document's `context` has none either; its title becomes the document's `name`.
import type { AssistantContentPart, ChatMessage, DocumentPart, ImagePart, TextPart, UserContentPart } from '../../model/chat.js';
import { parseBoundedJson } from '../../util/json-depth.js';
import { mediaTypeOf, parseDataUrl } from '../shared/images.js';
import { alternatingTurns } from '../shared/block-turns.js';
import { isObject, type JsonObject } from '../shared/json.js';
import { UpstreamError } from '../types.js';

export type CachePointBlock = { readonly cachePoint: { readonly type: 'default' } };

export type ImageBlock = { readonly image: { readonly format: string; readonly source: { readonly bytes: string } } };

export type ToolResultBlock = {
  readonly toolResult: {
    readonly toolUseId: string;
    readonly content: readonly ({ readonly text: string } | ImageBlock)[];
    readonly status?: 'error';
  };
};

export type UserBlock =
  | { readonly text: string }
  | ImageBlock
  | { readonly document: { readonly format: string; readonly name: string; readonly source: { readonly bytes: string } } }
  | ToolResultBlock
  | CachePointBlock;

export type ReasoningBlock = {
  readonly reasoningContent: { readonly reasoningText: { readonly text: string; readonly signature: string } } | { readonly redactedContent: string };
};

export type AssistantBlock =
  | { readonly text: string }
  | ReasoningBlock
  | { readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: JsonObject } }
  | CachePointBlock;

export type ConverseMessage =
  | { readonly role: 'user'; readonly content: readonly UserBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantBlock[] };

/** Converse's image formats, by media type. */
const imageFormats: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

export function toConverseMessages(messages: readonly ChatMessage[]): ConverseMessage[] {
  let documents = 0;
  const user = (content: readonly UserContentPart[]) => userBlocks(content, () => ++documents);
  return alternatingTurns<UserBlock, AssistantBlock>(messages, { user, assistant: assistantBlocks, isToolResult: (block) => 'toolResult' in block });
}

/** Whether any turn holds a tool call or a tool result (Converse then wants a toolConfig). */
export function mentionsTools(messages: readonly ConverseMessage[]): boolean {
  return messages.some((message) => message.content.some((block) => 'toolUse' in block || 'toolResult' in block));
}


function userBlocks(parts: readonly UserContentPart[], nextDocument: () => number): UserBlock[] {
  return parts.flatMap((part): UserBlock[] => {
    if (part.type === 'document') return [documentBlock(part, nextDocument())];
    if (part.type !== 'tool_result') return mediaBlocks([part]);
    const content = mediaBlocks(part.content);
    return [
      {
        toolResult: {
          toolUseId: part.toolCallId,
          // Converse wants at least one content block in a result.
          content: content.length > 0 ? content : [{ text: '(empty)' }],
          ...(part.isError ? { status: 'error' as const } : {}),
        },
      },
    ];
  });
}

function mediaBlocks(parts: readonly (TextPart | ImagePart)[]): ({ text: string } | ImageBlock)[] {
  return parts.flatMap((part): ({ text: string } | ImageBlock)[] => {
    if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
    return [imageBlock(part)];
  });
}

function imageBlock(image: ImagePart): ImageBlock {
  const inline = image.data !== undefined ? { mediaType: mediaTypeOf(image), data: image.data } : image.url !== undefined ? parseDataUrl(image.url) : undefined;
  if (!inline) {
    throw new UpstreamError('Bedrock takes images as bytes only: send the image inline (a data: URL or base64), not as a link', 400, false, 'invalid_request_error');
  }
  const format = imageFormats[inline.mediaType.toLowerCase()];
  if (!format) throw new UpstreamError(`Bedrock takes PNG, JPEG, GIF and WebP images, not ${inline.mediaType}`, 400, false, 'invalid_request_error');
  return { image: { format, source: { bytes: inline.data } } };
}

/**
 * A PDF as its bytes, plain text as UTF-8 bytes (format `txt`). Converse wants a name of
 * letters, digits, single spaces, hyphens, parentheses and square brackets, unique in the
 * request: the title cleaned to that, else "document N".
 */
function documentBlock(document: DocumentPart, ordinal: number): UserBlock {
  const source = document.source;
  const cleaned = (document.title ?? '').replace(/[^A-Za-z0-9 \-()[\]]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 180);
  const name = `${cleaned || 'document'} ${ordinal}`;
  return source.type === 'base64'
    ? { document: { format: 'pdf', name, source: { bytes: source.data } } }
    : { document: { format: 'txt', name, source: { bytes: Buffer.from(source.text, 'utf8').toString('base64') } } };
}

function assistantBlocks(parts: readonly AssistantContentPart[]): AssistantBlock[] {
  return parts.flatMap((part): AssistantBlock[] => {
    switch (part.type) {
      case 'text':
        return part.text === '' ? [] : [{ text: part.text }];
      case 'reasoning':
        return part.signature ? [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }] : [];
      case 'redacted_reasoning':
        return [{ reasoningContent: { redactedContent: part.data } }];
      case 'tool_call':
        return [{ toolUse: { toolUseId: part.id, name: part.name, input: toolInput(part.arguments) } }];
    }
  });
}

/** Arguments that are not a JSON object (or nest too deep to be sent on) become {}. */
function toolInput(text: string): JsonObject {
  const input = parseBoundedJson(text);
  return isObject(input) ? input : {};
}
