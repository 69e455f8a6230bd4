// The `openai` upstream: OpenAI Chat Completions at `${baseUrl}/chat/completions`.
import type { ChatAdapter } from '../types.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import { annotationCitations } from './annotations.js';
import { buildChatCompletionsRequest, type ChatCompletionsRequestOptions } from './request.js';
import { ChatCompletionsStreamParser } from './stream.js';

const requestOptions: ChatCompletionsRequestOptions = {
  maxTokensField: 'max_completion_tokens',
  // OpenAI Chat takes no reasoning back (it keeps its own server-side).
  reasoningContent: false,
  textAsString: false,
};

export const openaiChatAdapter: ChatAdapter = {
  kind: 'openai',
  takesDocuments: true,
  buildRequest: (request, target) => buildChatCompletionsRequest(request, target, requestOptions),
  createStreamParser: () => new ChatCompletionsStreamParser({ citationsOf: (_chunk, delta) => annotationCitations(delta) }),
  parseError: errorFromResponse,
};
