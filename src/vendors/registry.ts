// Which adapter serves each upstream kind: the chat adapter, the media adapter per operation
// and the job adapter per operation.
import { anthropicAdapter } from './anthropic/chat.js';
import type { JobAdapter, JobOperationName, JobOperations } from './job-types.js';
import type { MediaAdapter, MediaOperation, MediaTarget } from './media-types.js';
import { openaiAdapter } from './openai/chat.js';
import { openaiCompatibleMediaAdapter, openaiMediaAdapter } from './openai/media.js';
import { openaiVideoOperations } from './openai/videos.js';
import { openaiCompatibleAdapter } from './openai-compatible/chat.js';
import { errorFromResponse } from './shared/upstream-errors.js';
import { joinVersioned } from './shared/wire.js';
import { simOpenaiMediaAdapter } from './sim/media.js';
import { parseSunoError, sunoMusicOperations } from './suno/music.js';
import { systemOneAdapter } from './system-one/decisions.js';
import type { ProviderAdapter } from './types.js';
import { parseStabilityError, upscalerAdapter } from './upscaler/image-upscale.js';
import { upscalerVideoOperations } from './upscaler/video-upscale.js';

// ---- chat ----
// `sim` (the built-in simulator) speaks Anthropic Messages at its base URL — thinking
// signatures, citations, cache usage — and goes through the very same adapter, so the
// simulator exercises the real translation path.

export type UpstreamKind = 'openai' | 'anthropic' | 'openai-compatible' | 'sim';

export function chatAdapterFor(kind: UpstreamKind): ProviderAdapter {
  switch (kind) {
    case 'openai':
      return openaiAdapter;
    case 'openai-compatible':
      return openaiCompatibleAdapter;
    case 'anthropic':
    case 'sim':
      return anthropicAdapter;
  }
}

// ---- media ----
// One provider kind may speak several media protocols (the simulator speaks OpenAI's, System
// One's and Stability's), and each protocol has its own error bodies, so the adapter — with
// its parseError — is chosen for the operation, not for the kind alone.

export type MediaOperationName = Exclude<keyof MediaAdapter, 'kind' | 'parseError'>;

const mediaAdaptersByKind: Readonly<Record<string, readonly MediaAdapter[]>> = {
  openai: [openaiMediaAdapter],
  'openai-compatible': [openaiCompatibleMediaAdapter],
  'system-one': [systemOneAdapter],
  upscaler: [upscalerAdapter],
  sim: [simOpenaiMediaAdapter, systemOneAdapter, upscalerAdapter],
};

/** The adapter that does `operation` for upstreams of `kind`; undefined when the kind cannot. */
export function mediaAdapterFor(kind: string, operation: keyof MediaAdapter): MediaAdapter | undefined {
  if (operation === 'kind' || operation === 'parseError') return undefined;
  if (!Object.hasOwn(mediaAdaptersByKind, kind)) return undefined;
  return mediaAdaptersByKind[kind]!.find((adapter) => adapter[operation] !== undefined);
}

// ---- jobs ----
// The simulator speaks all three job protocols at its bare origin (OpenAI videos under /v1,
// Suno-style music under /api/v1, the upscaler under /v2beta), through the same operations the
// real vendors get.

/** The same operations against `${baseUrl}/v1` (the simulator's OpenAI side). */
function underV1<Request>(operations: JobOperations<Request>): JobOperations<Request> {
  const retarget = (target: MediaTarget): MediaTarget => ({ ...target, baseUrl: joinVersioned(target.baseUrl, 'v1', '') });
  const wrap = <In, Out>(operation: MediaOperation<In, Out>): MediaOperation<In, Out> => ({
    build: (request, target) => operation.build(request, retarget(target)),
    parse: (response, request, target) => operation.parse(response, request, retarget(target)),
  });
  return { submit: wrap(operations.submit), poll: wrap(operations.poll), download: wrap(operations.download) };
}

// What a submit whose outcome is unknown becomes (docs/money.md, "Jobs are sent upstream once"):
// OpenAI honours Idempotency-Key, so it is re-sent with the same key, as is the simulator's.
// An OpenAI-compatible vendor may ignore the header: it is sent, but not relied on. Suno-style
// music and the upscaler have neither a key nor a job list to look the job up in. Those jobs
// are failed with their hold released.
const openaiVideos: JobAdapter = { kind: 'openai', video: openaiVideoOperations, parseError: errorFromResponse, idempotencyHeader: 'Idempotency-Key' };
const compatibleVideos: JobAdapter = { kind: 'openai-compatible', video: openaiVideoOperations, parseError: errorFromResponse };
const suno: JobAdapter = { kind: 'suno', music: sunoMusicOperations, parseError: parseSunoError };
const upscaler: JobAdapter = { kind: 'upscaler', videoUpscale: upscalerVideoOperations, parseError: parseStabilityError };
// The simulator's music and upscaler keep the real vendors' adapters (no key), so the
// simulator exercises the fail-and-release path too; its videos are OpenAI's, keyed.
const simVideos: JobAdapter = { kind: 'sim', video: underV1(openaiVideoOperations), parseError: errorFromResponse, idempotencyHeader: 'Idempotency-Key' };

const jobAdaptersByKind: Readonly<Record<string, readonly JobAdapter[]>> = {
  openai: [openaiVideos],
  'openai-compatible': [compatibleVideos],
  suno: [suno],
  upscaler: [upscaler],
  sim: [simVideos, suno, upscaler],
};

/** The adapter that runs `operation` jobs on upstreams of `kind`; undefined when the kind cannot. */
export function jobAdapterFor(kind: string, operation: JobOperationName): JobAdapter | undefined {
  if (!Object.hasOwn(jobAdaptersByKind, kind)) return undefined;
  return jobAdaptersByKind[kind]!.find((adapter) => adapter[operation] !== undefined);
}
