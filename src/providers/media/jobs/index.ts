// The job adapter of each upstream kind. The simulator speaks all three job protocols at its
// bare origin (OpenAI videos under /v1, Suno-style music under /api/v1, the upscaler under
// /v2beta), through the same operations the real vendors get.
import { errorFromResponse } from '../../shared/upstream-errors.js';
import type { JobAdapter, JobOperationName } from '../jobs.js';
import { parseStabilityError } from '../upscaler/adapter.js';
import type { MediaOperation, MediaTarget } from '../types.js';
import { joinVersioned } from '../wire.js';
import { openaiVideoOperations } from './openai-videos.js';
import { parseSunoError, sunoMusicOperations } from './suno.js';
import { upscalerVideoOperations } from './upscaler-video.js';
import type { JobOperations } from '../jobs.js';

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

const adaptersByKind: Readonly<Record<string, readonly JobAdapter[]>> = {
  openai: [openaiVideos],
  'openai-compatible': [compatibleVideos],
  suno: [suno],
  upscaler: [upscaler],
  sim: [simVideos, suno, upscaler],
};

/** The adapter that runs `operation` jobs on upstreams of `kind`; undefined when the kind cannot. */
export function jobAdapterFor(kind: string, operation: JobOperationName): JobAdapter | undefined {
  if (!Object.hasOwn(adaptersByKind, kind)) return undefined;
  return adaptersByKind[kind]!.find((adapter) => adapter[operation] !== undefined);
}
