// The internal representation of asynchronous jobs (video, video upscale, music; background responses): what a
// route decodes into, what a job adapter sends upstream at submit, and what a poll reports.
// Imports nothing but the shared input-file shape.
import type { InputFile } from './media.js';

/** The jobs a vendor runs: submitted upstream, polled, their files downloaded. */
export type MediaJobKind = 'video' | 'video_upscale' | 'music';
/** `response`: a Responses request with `background: true`, run by the job runner itself. */
export type JobKind = MediaJobKind | 'response';

/** Gateway-side job status (the OpenAI video object's set, plus cancelled). */
export type JobStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface VideoJobRequest {
  readonly prompt: string;
  /** Whole seconds (4, 8, 12…). */
  readonly seconds: number;
  /** "<w>x<h>", e.g. "1280x720". */
  readonly size: string;
  /** An image to start from (OpenAI `input_reference`); at most one. */
  readonly reference?: InputFile;
  readonly seed?: number;
}

export interface VideoUpscaleJobRequest {
  /** The MP4 to upscale. */
  readonly video: InputFile;
  readonly prompt: string;
  /** 1.5–3.0. */
  readonly upscaleFactor: number;
  /** 0.0–1.0. */
  readonly creativity: number;
  /** What the gateway read from the file itself. */
  readonly inputWidth: number;
  readonly inputHeight: number;
  readonly inputSeconds: number;
}

export interface MusicJobRequest {
  /** simple: `prompt` is a description; custom: `lyrics` (or, in jobs stored before it, `prompt`) are the words, with `style` and `title`. */
  readonly mode: 'simple' | 'custom';
  readonly prompt?: string;
  readonly lyrics?: string;
  readonly style?: string;
  readonly title?: string;
  readonly instrumental: boolean;
  readonly negativeTags?: string;
}

/** A result file the upstream offers for download. */
export interface JobAsset {
  /** Absolute URL, fetched with the upstream's credentials (JobAdapter.download builds the request). */
  readonly url: string;
  readonly mediaType: string;
  /** Seconds of audio/video when the upstream says. */
  readonly durationSeconds?: number;
  readonly title?: string;
  readonly tags?: string;
}

/**
 * What one poll learned. `raw` is the vendor's own status string, kept for the logs and the
 * job row; a status the adapter does not know is `unknown` (the runner logs it and polls on).
 */
export type UpstreamJobState =
  | { readonly state: 'queued' | 'running'; readonly raw: string; readonly progress?: number }
  | {
      readonly state: 'completed';
      readonly raw: string;
      readonly assets: readonly JobAsset[];
      /** The upstream's own figure of what the job cost, when it reports one (video upscale). */
      readonly actualCost?: { readonly currency: 'USD' | 'RUB'; readonly amount: string };
    }
  | { readonly state: 'failed'; readonly raw: string; readonly code: string; readonly message: string }
  | { readonly state: 'unknown'; readonly raw: string };
