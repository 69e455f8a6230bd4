// Token estimates made by the gateway itself, never a substitute for the upstream's usage
// when it reports one: the input estimate sizes the hold (so it leans high: 3 characters per
// token, a generous allowance per image), the text count bills a stream that ended without
// usage (flagged as estimated) and answers /v1/messages/count_tokens.
import { jsonTextLength } from '../util/json-depth.js';
import type { ChatRequest } from './chat.js';

/** Approximate tokens of a text: 4 UTF-16 characters per token, rounded up. */
export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

const imageTokens = 1_600; // a large image in high detail, in OpenAI's and Anthropic's accounting
const perMessageTokens = 4;
// A PDF page: up to ~3000 tokens of text plus the page as an image (Anthropic's PDF support
// page); the plain estimate takes a typical page.
const highPageTokens = 3_000 + imageTokens;
const plainPageTokens = 1_500;

/**
 * Pages of a base64 PDF: the largest page-tree `/Count`, else the `/Type /Page` objects; a PDF
 * whose tree hides in compressed object streams counts one page per 100 KB, at least one.
 */
export function pdfPages(base64: string): number {
  const text = Buffer.from(base64, 'base64').toString('latin1');
  const counts = [...text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)].map((match) => Number(match[1] ?? match[2]));
  const pageObjects = [...text.matchAll(/\/Type\s*\/Page(?![A-Za-z])/g)].length;
  const found = Math.max(0, ...counts, pageObjects);
  return found > 0 ? found : Math.max(1, Math.ceil(text.length / 100_000));
}

/** What the estimates are made from; measuring walks the whole request, so the chat path does it once. */
export interface InputSize {
  readonly characters: number;
  readonly images: number;
  /** PDF pages: each is read as text and seen as an image of the page (Anthropic's and OpenAI's accounting). */
  readonly pages: number;
  readonly messages: number;
}

/** Characters of everything the request sends upstream (text, tool calls and definitions). */
export function measureInput(request: ChatRequest): InputSize {
  let characters = 0;
  let images = 0;
  let pages = 0;
  for (const part of request.system) characters += part.text.length;
  for (const tool of request.tools) characters += tool.name.length + (tool.description?.length ?? 0) + jsonTextLength(tool.parameters);
  // A schema goes upstream too (as response_format, output_config.format or a tool) and is billed as input.
  if (request.responseFormat?.type === 'json_schema') characters += jsonTextLength(request.responseFormat.schema);
  for (const message of request.messages) {
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          characters += part.text.length;
          break;
        case 'image':
          images++;
          break;
        case 'document':
          if (part.source.type === 'text') characters += part.source.text.length;
          else pages += pdfPages(part.source.data);
          characters += (part.title?.length ?? 0) + (part.context?.length ?? 0);
          break;
        case 'redacted_reasoning':
          characters += part.data.length;
          break;
        case 'tool_call':
          characters += part.name.length + part.arguments.length;
          break;
        case 'tool_result':
          for (const inner of part.content) {
            if (inner.type === 'text') characters += inner.text.length;
            else images++;
          }
          break;
      }
    }
  }
  return { characters, images, pages, messages: request.messages.length + (request.system.length > 0 ? 1 : 0) };
}

/** A high estimate of the input tokens, for the hold. */
export function highInputTokens({ characters, images, pages, messages }: InputSize): number {
  return Math.ceil(characters / 3) + images * imageTokens + pages * highPageTokens + messages * perMessageTokens + 16;
}

/**
 * A plain estimate of the input tokens (count_tokens, billing without upstream usage, the
 * context-window check — a high estimate there would refuse requests the model accepts).
 */
export function plainInputTokens({ characters, images, pages, messages }: InputSize): number {
  return Math.ceil(characters / 4) + images * 85 + pages * plainPageTokens + messages * 3;
}

export function estimateInputTokens(request: ChatRequest): number {
  return plainInputTokens(measureInput(request));
}
