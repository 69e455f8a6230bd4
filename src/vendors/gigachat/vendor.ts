// GigaChat (Sber): chat (request.ts, stream.ts) and embeddings (embeddings.ts), reached with
// an access token exchanged for the provider's authorization key (credentials.ts). Its
// servers present certificates of the Russian Trusted Root CA (Ministry of Digital
// Development): Node must be given it with NODE_EXTRA_CA_CERTS (docs/vendors.md).
import { z } from 'zod';
import type { ChatAdapter } from '../types.js';
import type { MediaAdapter } from '../media-types.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import type { Vendor } from '../vendor.js';
import { gigachatCredentials, gigachatScopes } from './credentials.js';
import { gigachatEmbeddingsOperation } from './embeddings.js';
import { buildGigachatRequest, outputFunctionName } from './request.js';
import { GigachatStreamParser } from './stream.js';

export const gigachatChatAdapter: ChatAdapter = {
  kind: 'gigachat',
  takesDocuments: false,
  buildRequest: buildGigachatRequest,
  createStreamParser: (_target, request) => new GigachatStreamParser(outputFunctionName(request)),
  // {"status": 401, "message": "Unauthorized"}: the shared reader takes its message.
  parseError: errorFromResponse,
};

export const gigachatMediaAdapter: MediaAdapter = { kind: 'gigachat', embed: gigachatEmbeddingsOperation, parseError: errorFromResponse };

export const gigachatVendor: Vendor = {
  chat: gigachatChatAdapter,
  media: [gigachatMediaAdapter],
  jobs: [],
  defaultBaseUrl: 'https://gigachat.devices.sberbank.ru',
  providerSettings: {
    scope: z.enum(gigachatScopes).optional(),
    auth_url: z.url().optional(),
  },
  credentials: (source, signal) => gigachatCredentials(source, signal),
};
