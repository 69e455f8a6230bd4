// YandexGPT through the Foundation Models completion API (request.ts, stream.ts, errors.ts).
import type { ChatAdapter } from '../types.js';
import { yandexErrorFromResponse } from './errors.js';
import { buildCompletionRequest } from './request.js';
import { YandexCompletionParser } from './stream.js';

export const yandexChatAdapter: ChatAdapter = {
  kind: 'yandex',
  // No document or file input on this wire: documents are refused, not lost.
  takesDocuments: false,
  framing: 'ndjson',
  buildRequest: (request, target) => buildCompletionRequest(request, target),
  createStreamParser: (target) => new YandexCompletionParser(target.model),
  parseError: yandexErrorFromResponse,
};
