// The `gemini` chat adapter: Google's Gemini API (or Vertex AI), streamGenerateContent over SSE.
import type { ChatAdapter } from '../types.js';
import { parseGeminiError } from './errors.js';
import { buildGeminiRequest } from './request.js';
import { GeminiStreamParser } from './stream.js';

export const geminiChatAdapter: ChatAdapter = {
  kind: 'gemini',
  // PDFs go up as inlineData, text documents as text.
  takesDocuments: true,
  buildRequest: buildGeminiRequest,
  createStreamParser: () => new GeminiStreamParser(),
  parseError: parseGeminiError,
};
