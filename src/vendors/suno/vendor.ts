// Suno-style music (sunoapi.org, kie.ai): music jobs only; base_url is required.
import type { JobAdapter } from '../job-types.js';
import type { Vendor } from '../vendor.js';
import { parseSunoError, sunoMusicOperations } from './music.js';

// No idempotency key and no job list to look a job up in: a submit whose outcome is unknown
// fails its job with the hold released (docs/money.md, "Jobs are sent upstream once").
export const sunoMusicJobs: JobAdapter = { kind: 'suno', music: sunoMusicOperations, parseError: parseSunoError };

export const sunoVendor: Vendor = {
  media: [],
  jobs: [sunoMusicJobs],
};
