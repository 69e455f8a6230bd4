// Google Gemini: the Gemini API (API key) or Vertex AI (service account), chat over
// streamGenerateContent and embeddings over batchEmbedContents; no jobs.
import type { Vendor } from '../vendor.js';
import { geminiChatAdapter } from './chat.js';
import { geminiEmbeddingsOperation } from './embeddings.js';
import { parseGeminiError } from './errors.js';
import { geminiApiBaseUrl, geminiProviderSettings } from './settings.js';
import { geminiCredentials } from './vertex-token.js';

export const geminiVendor: Vendor = {
  chat: geminiChatAdapter,
  media: [{ kind: 'gemini', embed: geminiEmbeddingsOperation, parseError: parseGeminiError }],
  jobs: [],
  defaultBaseUrl: geminiApiBaseUrl,
  providerSettings: geminiProviderSettings,
  credentials: (source, signal) => geminiCredentials(source, signal),
};
