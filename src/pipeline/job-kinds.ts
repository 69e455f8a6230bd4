// What differs between the kinds of vendor job (a background response runs here: background-responses.ts), as data: the vendor operation, the upstream
// request made from the stored one, how many results are kept, how they are stored and
// described, and what the completed job costs. The steps (job-submit.ts, job-collect.ts) read
// this table instead of branching on the kind.
import { reportedCostUnits } from '../billing/job-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { Job, JobResult } from '../jobs/job.js';
import type { JobMediaSeconds } from './job-end.js';
import type { JobAsset, JobKind, MediaJobKind, UpstreamJobState } from '../model/jobs.js';
import type { InputFile } from '../model/media.js';
import type { JobOperationName } from '../vendors/job-types.js';

/** The rules of a vendor job's kind; a background response has none (job-step.ts runs it before any vendor step). */
export function mediaJobRules(kind: JobKind): JobKindRules {
  if (kind === 'response') throw new Error('a background response is not a vendor job');
  return jobKinds[kind];
}

/** A stored input file (by its id in the job's request) read back, or undefined when the request names none. */
export type ReadInput = (fileId: unknown) => Promise<InputFile | undefined>;

export interface JobKindRules {
  readonly operation: JobOperationName;
  /** The purpose its result files are stored under. */
  readonly filePurpose: 'video' | 'music';
  /** The vendor-neutral request (model/jobs.ts) from the job's stored request. */
  upstreamRequest(request: Job['request'], input: ReadInput): Promise<unknown>;
  /** How many of the results the upstream offers are kept. */
  resultCount(model: CatalogModel, offered: number): number;
  /** What the job's result says beside its files. */
  resultDetails(job: Job, assets: readonly JobAsset[]): Omit<JobResult, 'fileIds'>;
  /** The charge of the completed job: what was held (the quote), or what the upstream reports, never above the hold. */
  actualUnits(job: Job, completed: Extract<UpstreamJobState, { state: 'completed' }>, usdRub: string): bigint;
  /** The whole seconds the charge is for, on its usage record: video (the seconds asked or upscaled) or audio (the tracks). */
  mediaSeconds(job: Job, result: JobResult): JobMediaSeconds;
}

/** Started seconds count whole, as a transcription's do. */
const wholeSeconds = (seconds: unknown) => (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 0);

const charged = (job: Job) => job.holdUnits;

export const jobKinds: Record<MediaJobKind, JobKindRules> = {
  video: {
    operation: 'video',
    filePurpose: 'video',
    upstreamRequest: async (request, input) => ({ prompt: request.prompt, seconds: request.seconds, size: request.size, seed: request.seed, reference: await input(request.reference_file_id) }),
    resultCount: () => 1,
    resultDetails: () => ({}),
    actualUnits: charged,
    mediaSeconds: (job) => ({ videoSeconds: wholeSeconds(job.request.seconds) }),
  },
  video_upscale: {
    operation: 'videoUpscale',
    filePurpose: 'video',
    upstreamRequest: async (request, input) => ({
      video: await input(request.video_file_id),
      prompt: request.prompt,
      upscaleFactor: request.upscale_factor,
      creativity: request.creativity,
      inputWidth: request.input_width,
      inputHeight: request.input_height,
      inputSeconds: request.input_seconds,
    }),
    resultCount: () => 1,
    resultDetails: (job) => (typeof job.request.size === 'string' ? { size: job.request.size } : {}),
    // Settled from the upstream's actual cost (never more than held: the ledger caps it).
    actualUnits: (job, completed, usdRub) => (completed.actualCost ? reportedCostUnits(completed.actualCost, usdRub) : job.holdUnits),
    mediaSeconds: (job) => ({ videoSeconds: wholeSeconds(job.request.seconds) }),
  },
  music: {
    operation: 'music',
    filePurpose: 'music',
    upstreamRequest: async (request) => ({
      mode: request.mode,
      prompt: request.prompt,
      lyrics: request.lyrics,
      style: request.style,
      title: request.title,
      instrumental: request.instrumental,
      negativeTags: request.negative_tags,
    }),
    // A song model delivers two tracks, an instrumental one: as many as the model declares.
    resultCount: (model, offered) => model.config.capabilities.tracks ?? offered,
    resultDetails: (_job, assets) => ({ tracks: assets.map((asset) => ({ durationSeconds: asset.durationSeconds ?? null, title: asset.title ?? null, tags: asset.tags ?? null })) }),
    actualUnits: charged,
    mediaSeconds: (_job, result) => ({ audioSeconds: wholeSeconds((result.tracks ?? []).reduce((sum, track) => sum + (track.durationSeconds ?? 0), 0)) }),
  },
};
