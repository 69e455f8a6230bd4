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
  /**
   * For a vendor without an idempotency header whose submit can name the job with the
   * gateway's key and which looks a job up by that name (Kling's `external_task_id`): a submit
   * whose outcome is unknown is then looked up by its key rather than failed.
   */
  readonly named?: NamedSubmit<Request>;
}

export interface NamedSubmit<Request> {
  /** The submit carrying the gateway's key in the vendor's own field (used instead of `submit`). */
  submit(key: string): MediaOperation<Request, SubmittedJob>;
  /**
   * The job the vendor made under the key; undefined, or an UpstreamError of status 404, when it
   * has none (the first submit never arrived).
   */
  readonly find: MediaOperation<NamedLookup<Request>, SubmittedJob | undefined>;
}

export interface NamedLookup<Request> {
  readonly key: string;
  /** The job's request, for vendors whose look-up path depends on it (text or image input). */
  readonly request: Request;
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

/** The submit that carries the key: in the vendor's own field (`named`), else in the idempotency header. */
export function submitWithKey<Request>(adapter: JobAdapter, operations: JobOperations<Request>, key: string): MediaOperation<Request, SubmittedJob> {
  return operations.named ? operations.named.submit(key) : keyedSubmit(operations.submit, adapter.idempotencyHeader, key);
}

/** Whether a submit whose outcome is unknown can be settled without paying twice: re-sent by key, or looked up by name. */
export function canReconcile(adapter: JobAdapter, operations: JobOperations<unknown>): boolean {
  return adapter.idempotencyHeader !== undefined || operations.named !== undefined;
}

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
