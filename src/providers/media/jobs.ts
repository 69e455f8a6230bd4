// The contract of asynchronous media adapters (video, video upscale, music): submit a job,
// poll it, download its results. Each step is an ordinary MediaOperation, sent by the shared
// media transport (runMediaOperation) through the upstream's own pool, so errors, timeouts
// and Retry-After behave as for the synchronous operations.
import type { JobAsset, MusicJobRequest, UpstreamJobState, VideoJobRequest, VideoUpscaleJobRequest } from '../../model/jobs.js';
import type { UpstreamError } from '../types.js';
import type { MediaOperation } from './types.js';

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
  readonly video?: JobOperations<VideoJobRequest>;
  readonly videoUpscale?: JobOperations<VideoUpscaleJobRequest>;
  readonly music?: JobOperations<MusicJobRequest>;
  parseError(status: number, body: string): UpstreamError;
}

export type JobOperationName = 'video' | 'videoUpscale' | 'music';
