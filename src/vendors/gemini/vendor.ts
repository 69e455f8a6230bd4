// Google Gemini: the Gemini API (API key) or Vertex AI (service account), chat over
// streamGenerateContent, embeddings over batchEmbedContents, images (Imagen's predict, Gemini
// image models' generateContent), Veo video jobs (predictLongRunning, operations polled).
import type { Vendor } from '../vendor.js';
import { geminiChatAdapter } from './chat.js';
import { geminiEmbeddingsOperation } from './embeddings.js';
import { parseGeminiError } from './errors.js';
import { geminiImageEdit, geminiImageGeneration } from './images.js';
import { geminiApiBaseUrl, geminiProviderSettings } from './settings.js';
import { geminiVideoOperations } from './videos.js';
import { geminiCredentials } from './vertex-token.js';

export const geminiVendor: Vendor = {
  chat: geminiChatAdapter,
  media: [{ kind: 'gemini', embed: geminiEmbeddingsOperation, generateImages: geminiImageGeneration, editImages: geminiImageEdit, parseError: parseGeminiError }],
  jobs: [{ kind: 'gemini', video: geminiVideoOperations, parseError: parseGeminiError }],
  defaultBaseUrl: geminiApiBaseUrl,
  providerSettings: geminiProviderSettings,
  credentials: (source, signal) => geminiCredentials(source, signal),
};
