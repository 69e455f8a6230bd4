// The body of POST /v1/audio/music and /v1/audio/music/price.
import { z } from 'zod';
import { jobControlFields } from './job-control.js';

// The spec's fields: `prompt` (a description) and `lyrics` (custom mode's words) up to 5000
// characters each in every mode, `style` up to 500 and `title` up to 200, both empty by default.
// The Suno adapter fits them to the vendor.
export const musicFields = z.object({
  model: z.string().min(1).optional(),
  mode: z.enum(['simple', 'custom']).default('simple'),
  prompt: z.string().min(1).max(5000).optional(),
  lyrics: z.string().min(1).max(5000).optional(),
  style: z.string().max(500).default(''),
  title: z.string().max(200).default(''),
  negative_tags: z.string().min(1).max(1000).optional(),
  ...jobControlFields,
});
export type MusicFields = z.output<typeof musicFields>;
