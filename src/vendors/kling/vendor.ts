// Kling (Kuaishou) video generation: text to video and image to video as the gateway's video
// jobs. Its key is an access key and a secret key, `ACCESS_KEY:SECRET_KEY` in the variable the
// provider's api_key_env names; each request carries a JWT signed with them (credentials.ts).
// Kling has no idempotency header, but a task can be named (external_task_id = the gateway's
// submit key) and looked up by that name, so a submit whose answer was lost is found, not
// failed or sent twice (job-types.ts, `named`).
import type { JobAdapter } from '../job-types.js';
import type { Vendor } from '../vendor.js';
import { klingCredentials } from './credentials.js';
import { parseKlingError } from './errors.js';
import { klingVideoOperations } from './videos.js';

export const klingVideoJobs: JobAdapter = { kind: 'kling', video: klingVideoOperations, parseError: parseKlingError };

export const klingVendor: Vendor = {
  media: [],
  jobs: [klingVideoJobs],
  // Kling's global API (the published reference's domain); api.klingai.com serves mainland China.
  defaultBaseUrl: 'https://api-singapore.klingai.com',
  credentials: (source, signal) => klingCredentials(source, signal),
};
