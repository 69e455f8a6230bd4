// The OpenAI Responses dialect (POST /v1/responses), stateless: every request carries the
// whole conversation, or refers by `item_reference` to output items the gateway returned in
// the last few minutes (item-references.ts). Reasoning signatures travel in reasoning items'
// `encrypted_content` (redacted reasoning behind the `redacted:` prefix), so they survive the
// client round trip.
import type { Dialect } from '../types.js';
import { encodeOpenaiError } from '../shared/openai-error.js';
import { responsesItemReferences } from './item-references.js';
import { decodeResponsesRequest } from './request.js';
import { encodeResponsesResult } from './result.js';
import { ResponsesStreamEncoder } from './stream.js';

export const responsesDialect: Dialect = {
  name: 'responses',
  locations: {
    reasoningEffort: ['body', 'reasoning', 'effort'],
    maxOutputTokens: ['body', 'max_output_tokens'],
    tools: ['body', 'tools'],
    messages: ['body', 'input'],
  },
  decodeRequest: decodeResponsesRequest,
  encodeResult: encodeResponsesResult,
  createStreamEncoder: (request, context) => new ResponsesStreamEncoder(request, context),
  encodeError: encodeOpenaiError,
  itemReferences: responsesItemReferences,
};

export { decodeResponsesRequest } from './request.js';
export { encodeResponsesResult } from './result.js';
export { ResponsesStreamEncoder } from './stream.js';
export { redactedPrefix } from './items.js';
