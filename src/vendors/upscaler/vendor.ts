// The Stability-style upscaler: image upscales (synchronous) and video upscales (jobs);
// base_url is required.
import type { JobAdapter } from '../job-types.js';
import type { Vendor } from '../vendor.js';
import { parseStabilityError, upscalerAdapter } from './image-upscale.js';
import { upscalerVideoOperations } from './video-upscale.js';

// No idempotency key and no job list to look a job up in: a submit whose outcome is unknown
// fails its job with the hold released (docs/money.md, "Jobs are sent upstream once").
export const upscalerVideoJobs: JobAdapter = { kind: 'upscaler', videoUpscale: upscalerVideoOperations, parseError: parseStabilityError };

export const upscalerVendor: Vendor = {
  media: [upscalerAdapter],
  jobs: [upscalerVideoJobs],
};
