// The `openai-compatible` upstream: vLLM, Ollama, OpenRouter, DeepSeek, Perplexity… The wire
// is OpenAI Chat Completions; what differs is carried by options of the openai pieces:
//   - `max_tokens` (most of them do not know `max_completion_tokens`);
//   - text-only content as strings (several refuse content-part arrays outside user images);
//   - reasoning out: `delta.reasoning_content` / `delta.reasoning` → reasoning blocks, which
//     carry no signature; reasoning in: assistant reasoning text → `reasoning_content`
//     (signatures and redacted reasoning have no field here and are dropped);
//   - citations: Perplexity `citations` / `search_results`, OpenRouter annotations.
import type { ChatAdapter } from '../types.js';
import { buildChatCompletionsRequest, type ChatCompletionsRequestOptions } from '../openai/request.js';
import { ChatCompletionsStreamParser } from '../openai/stream.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import { compatibleCitationsOf } from './citations.js';
import { compatibleReasoningOf } from './reasoning.js';

const requestOptions: ChatCompletionsRequestOptions = {
  maxTokensField: 'max_tokens',
  reasoningContent: true,
  textAsString: true,
};

export const openaiCompatibleChatAdapter: ChatAdapter = {
  kind: 'openai-compatible',
  // Chat Completions servers other than OpenAI's rarely take `file` parts: documents are refused, not lost.
  takesDocuments: false,
  buildRequest: (request, target) => buildChatCompletionsRequest(request, target, requestOptions),
  createStreamParser: () => new ChatCompletionsStreamParser({ reasoningOf: compatibleReasoningOf, citationsOf: compatibleCitationsOf }),
  parseError: errorFromResponse,
};
