// The contract of asynchronous media adapters (video, video upscale, music): submit a job,
// poll it, download its results. Each step is an ordinary MediaOperation, sent by the shared
// media transport (runMediaOperation) through the upstream's own pool, so errors, timeouts
// and Retry-After behave as for the synchronous operations.
import type { JobAsset, MusicJobRequest, UpstreamJobState, VideoJobRequest, VideoUpscaleJobRequest } from '../model/jobs.js';
import type { UpstreamError } from './types.js';
import type { MediaOperation } from './media-types.js';

export interface SubmittedJob {
  /** The upstream's id of the job (OpenAI video id, Suno taskId, upscaler generation id). */
  readonly upstreamId: string;
}

export interface JobOperations<Request> {
  readonly submit: MediaOperation<Request, SubmittedJob>;
  /** Request = the upstreamId. */
  readonly poll: MediaOperation<string, UpstreamJobState>;
  /** Request = one asset of a completed poll; the result is the file's bytes. */
  readonly download: MediaOperation<JobAsset, Uint8Array>;
}

export interface JobAdapter {
  readonly kind: string;
  /**
   * The request header by which the vendor makes a repeated submit answer the job it already
   * made (OpenAI: `Idempotency-Key`). The runner sends a key derived from the job id and, when
   * a submit's outcome is unknown (the runner died, the answer was lost), re-sends with the
   * same key. Without one the vendor offers no safe way to find out, and such a job is failed
   * with its hold released rather than risk paying for it twice.
   */
  readonly idempotencyHeader?: string;
  readonly video?: JobOperations<VideoJobRequest>;
  readonly videoUpscale?: JobOperations<VideoUpscaleJobRequest>;
  readonly music?: JobOperations<MusicJobRequest>;
  parseError(status: number, body: string): UpstreamError;
}

export type JobOperationName = 'video' | 'videoUpscale' | 'music';

/** The submit with the idempotency key in its header (unchanged when the adapter has no header). */
export function keyedSubmit<Request>(submit: MediaOperation<Request, SubmittedJob>, header: string | undefined, key: string): MediaOperation<Request, SubmittedJob> {
  if (header === undefined) return submit;
  return {
    build: (request, target) => {
      const built = submit.build(request, target);
      return { ...built, headers: { ...built.headers, [header]: key } };
    },
    parse: submit.parse,
  };
}
