// The built-in simulator (src/sim/), an upstream like any other: it composes the real vendors'
// adapters at its own base URL, so it exercises the very code real upstreams go through.
// Usage: OpenAI's organization usage API. Chat: Anthropic Messages (thinking signatures, citations, cache usage). Media: OpenAI's
// operations under /v1, System One's decisions, Stability's image upscale. Jobs: OpenAI videos
// under /v1, Suno-style music, the video upscaler.
import type { JobAdapter } from '../job-types.js';
import { anthropicChatAdapter } from '../anthropic/chat.js';
import { errorFromResponse } from '../shared/upstream-errors.js';
import { sunoMusicJobs } from '../suno/vendor.js';
import { systemOneAdapter } from '../system-one/decisions.js';
import { upscalerAdapter } from '../upscaler/image-upscale.js';
import { upscalerVideoJobs } from '../upscaler/vendor.js';
import type { Vendor } from '../vendor.js';
import { openaiUsageApi } from '../openai/usage-api.js';
import { simOpenaiMediaAdapter, simOpenaiVideoOperations, underV1 } from './under-v1.js';

// Its videos are OpenAI's, keyed; its music and upscaler keep the real vendors' adapters (no
// key), so the simulator exercises the fail-and-release path too.
const simVideoJobs: JobAdapter = { kind: 'sim', video: simOpenaiVideoOperations, parseError: errorFromResponse, idempotencyHeader: 'Idempotency-Key' };

export const simVendor: Vendor = {
  chat: anthropicChatAdapter,
  media: [simOpenaiMediaAdapter, systemOneAdapter, upscalerAdapter],
  jobs: [simVideoJobs, sunoMusicJobs, upscalerVideoJobs],
  // OpenAI's organization usage API under /v1 (src/sim/usage-api.ts): what the simulator would bill.
  usage: { covers: openaiUsageApi.covers, reports: openaiUsageApi.reports.map(underV1), parseError: openaiUsageApi.parseError },
  servedBySimulator: true,
};
