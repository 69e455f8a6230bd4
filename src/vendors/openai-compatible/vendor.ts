// OpenAI-compatible servers (vLLM, Ollama, OpenRouter, LocalAI, LiteLLM…): OpenAI's wire with
// their own variations; base_url is required (there is no default server).
import type { JobAdapter } from '../job-types.js';
import { openaiVideoOperations } from '../openai/videos.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import type { Vendor } from '../vendor.js';
import { openaiCompatibleChatAdapter } from './chat.js';
import { openaiCompatibleMediaAdapter } from './media.js';

// A compatible vendor may ignore Idempotency-Key, so no header is relied on: a submit whose
// outcome is unknown fails its job with the hold released (docs/money.md, "Jobs are sent
// upstream once").
export const openaiCompatibleVideoJobs: JobAdapter = { kind: 'openai-compatible', video: openaiVideoOperations, parseError: errorFromResponse };

export const openaiCompatibleVendor: Vendor = {
  chat: openaiCompatibleChatAdapter,
  media: [openaiCompatibleMediaAdapter],
  jobs: [openaiCompatibleVideoJobs],
};
