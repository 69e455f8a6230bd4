// The body of POST /v1/videos/upscale (multipart): `video` (MP4), `prompt`, `upscale_factor`
// 1.5–3.0, `creativity` 0–1, and the job control fields (as strings, as forms send them).
import { z } from 'zod';
import { jobControlFields } from './job-control.js';

/** Largest video accepted for upscaling (kept in memory while read; see multipart.ts). */
export const maxUpscaleVideoBytes = 100 * 1024 * 1024;
export const defaultUpscalePrompt = 'Upscale this video faithfully: keep its content, motion and colours; add natural detail only.';

export const videoUpscaleFields = z.object({
  model: z.string().min(1).optional(),
  prompt: z.string().min(1).max(32_000).default(defaultUpscalePrompt),
  upscale_factor: z.coerce.number().min(1.5).max(3).multipleOf(0.01).default(1.5),
  creativity: z.coerce.number().min(0).max(1).default(0),
  ...jobControlFields,
  wait: z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1').default(false),
  wait_timeout: z.coerce.number().int().min(1).max(300).default(60),
});
export type VideoUpscaleFields = z.output<typeof videoUpscaleFields>;
