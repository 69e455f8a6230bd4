// The Gemini API client dialect (@google/genai; POST /v1beta/models/{model}:generateContent,
// :streamGenerateContent, :countTokens). Two dialect objects, one per route: the path says
// whether the client streams, where the other dialects read it from the body.
import type { Dialect } from '../types.js';
import { encodeGeminiError } from './error.js';
import { decodeGenerateContentRequest } from './request.js';
import { encodeGenerateContentResult } from './result.js';
import { GeminiStreamEncoder } from './stream.js';

const common = {
  name: 'generate-content',
  locations: {
    reasoningEffort: ['body', 'generationConfig', 'thinkingConfig'],
    maxOutputTokens: ['body', 'generationConfig', 'maxOutputTokens'],
    tools: ['body', 'tools'],
    messages: ['body', 'contents'],
  },
  encodeResult: encodeGenerateContentResult,
  createStreamEncoder: (request, context) => new GeminiStreamEncoder(request, context),
  encodeError: encodeGeminiError,
} as const satisfies Omit<Dialect, 'decodeRequest'>;

/** POST …:generateContent. */
export const generateContentDialect: Dialect = { ...common, decodeRequest: (body) => decodeGenerateContentRequest(body, false) };

/** POST …:streamGenerateContent. */
export const streamGenerateContentDialect: Dialect = { ...common, decodeRequest: (body) => decodeGenerateContentRequest(body, true) };

export { decodeCountTokensRequest, decodeGenerateContentRequest, modelIdOf } from './request.js';
export { encodeCountTokens, encodeGenerateContentResult } from './result.js';
export { encodeGeminiError, rpcStatusName } from './error.js';
export { GeminiStreamEncoder } from './stream.js';
