// OpenAI: chat completions, images, speech, transcriptions, embeddings and videos.
import type { JobAdapter } from '../job-types.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import type { Vendor } from '../vendor.js';
import { openaiChatAdapter } from './chat.js';
import { openaiMediaAdapter } from './media.js';
import { openaiVideoOperations } from './videos.js';

// What a submit whose outcome is unknown becomes (docs/money.md, "Jobs are sent upstream
// once"): OpenAI honours Idempotency-Key, so it is re-sent with the same key.
export const openaiVideoJobs: JobAdapter = { kind: 'openai', video: openaiVideoOperations, parseError: errorFromResponse, idempotencyHeader: 'Idempotency-Key' };

export const openaiVendor: Vendor = {
  chat: openaiChatAdapter,
  media: [openaiMediaAdapter],
  jobs: [openaiVideoJobs],
  defaultBaseUrl: 'https://api.openai.com/v1',
};
