// The Anthropic Messages client dialect (POST /v1/messages, /v1/messages/count_tokens).
import type { Dialect } from '../types.js';
import { encodeAnthropicError } from './error.js';
import { decodeMessagesRequest } from './request.js';
import { encodeMessagesResult } from './result.js';
import { MessagesStreamEncoder } from './stream.js';

export const messagesDialect: Dialect = {
  name: 'messages',
  locations: {
    // Also where output_config.effort is reported: thinking is the field most clients send.
    reasoningEffort: ['body', 'thinking'],
    maxOutputTokens: ['body', 'max_tokens'],
    tools: ['body', 'tools'],
    messages: ['body', 'messages'],
  },
  decodeRequest: decodeMessagesRequest,
  encodeResult: encodeMessagesResult,
  createStreamEncoder: (request, context) => new MessagesStreamEncoder(request, context),
  encodeError: encodeAnthropicError,
};

export { decodeMessagesRequest, decodeCountTokensRequest } from './request.js';
export { encodeMessagesResult, encodeCountTokens, messageIdPrefix } from './result.js';
export { MessagesStreamEncoder } from './stream.js';
