// The `anthropic` upstream (and the built-in simulator, which speaks the same protocol):
// Anthropic Messages at `${baseUrl}/v1/messages`.
import type { ChatAdapter } from '../types.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import { outputToolName } from './output-tool.js';
import { buildMessagesRequest } from './request.js';
import { MessagesStreamParser } from './stream.js';

export const anthropicChatAdapter: ChatAdapter = {
  kind: 'anthropic',
  takesDocuments: true,
  buildRequest: buildMessagesRequest,
  createStreamParser: (target, request) => new MessagesStreamParser(request.responseFormat ? outputToolName(request, target) : undefined),
  parseError: errorFromResponse,
};
