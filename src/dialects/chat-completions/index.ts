// The OpenAI Chat Completions client dialect (POST /v1/chat/completions).
import type { Dialect } from '../types.js';
import { encodeOpenaiError } from '../shared/openai-error.js';
import { decodeChatCompletionsRequest } from './request.js';
import { encodeChatCompletionsResult } from './result.js';
import { ChatCompletionsStreamEncoder } from './stream.js';

export const chatCompletionsDialect: Dialect = {
  name: 'chat-completions',
  locations: {
    reasoningEffort: ['body', 'reasoning_effort'],
    // Locations are static; a client may have sent max_completion_tokens instead (both are
    // accepted, max_completion_tokens wins). max_tokens is the field most clients still send.
    maxOutputTokens: ['body', 'max_tokens'],
    tools: ['body', 'tools'],
    messages: ['body', 'messages'],
  },
  decodeRequest: decodeChatCompletionsRequest,
  encodeResult: encodeChatCompletionsResult,
  createStreamEncoder: (request, context) => new ChatCompletionsStreamEncoder(request, context),
  encodeError: encodeOpenaiError,
};

export { decodeChatCompletionsRequest } from './request.js';
export { encodeChatCompletionsResult, chatCompletionIdPrefix } from './result.js';
export { ChatCompletionsStreamEncoder } from './stream.js';
export type { ReasoningDetail } from './reasoning-details.js';
