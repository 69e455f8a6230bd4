// FLUX by Black Forest Labs: image generation and Kontext edits through BFL's asynchronous
// API (submit, poll, fetch the signed sample), images.ts.
import { z } from 'zod';
import type { MediaAdapter } from '../media-types.js';
import type { Vendor } from '../vendor.js';
import { parseBflError } from './errors.js';
import { bflImageOperation } from './images.js';

export const bflMediaAdapter: MediaAdapter = {
  kind: 'bfl',
  generateImages: bflImageOperation,
  // The same endpoint: references ride in the JSON body as input_image…
  editImages: bflImageOperation,
  parseError: parseBflError,
};

export const bflVendor: Vendor = {
  media: [bflMediaAdapter],
  jobs: [],
  defaultBaseUrl: 'https://api.bfl.ai',
  providerSettings: {
    // BFL's moderation tolerance for every request of this provider: 0 (strictest) to 6; BFL's default is 2.
    safety_tolerance: z.number().int().min(0).max(6).optional(),
  },
};
