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

/** What the estimates are made from; measuring walks the whole request, so the chat path does it once. */
export interface InputSize {
  readonly characters: number;
  readonly images: number;
  readonly messages: number;
}

/** Characters of everything the request sends upstream (text, tool calls and definitions). */
export function measureInput(request: ChatRequest): InputSize {
  let characters = 0;
  let images = 0;
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
  return { characters, images, messages: request.messages.length + (request.system.length > 0 ? 1 : 0) };
}

/** A high estimate of the input tokens, for the hold. */
export function highInputTokens({ characters, images, messages }: InputSize): number {
  return Math.ceil(characters / 3) + images * imageTokens + messages * perMessageTokens + 16;
}

/**
 * A plain estimate of the input tokens (count_tokens, billing without upstream usage, the
 * context-window check — a high estimate there would refuse requests the model accepts).
 */
export function plainInputTokens({ characters, images, messages }: InputSize): number {
  return Math.ceil(characters / 4) + images * 85 + messages * 3;
}

export function estimateInputTokens(request: ChatRequest): number {
  return plainInputTokens(measureInput(request));
}
