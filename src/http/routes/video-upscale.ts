// POST /v1/videos/upscale (multipart): `video` (MP4), `prompt`, `upscale_factor` 1.5–3.0,
// `creativity` 0–1. Priced from the file itself and submitted as a job (pipeline/video-upscale.ts);
// polled like any video: GET /v1/videos/{id}.
import { maxUpscaleVideoBytes, videoUpscaleFields } from '../../dialects/openai-media/video-upscale.js';
import { createVideoUpscale } from '../../pipeline/video-upscale.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Handler } from '../state.js';
import { markDeprecated, respondWithJob } from './job-responses.js';

export const upscaleVideo: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxUpscaleVideoBytes, maxFiles: 1 });
  const fields = validate(videoUpscaleFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'video')?.file;
  if (!upload) throw invalid(['body', 'video'], 'Field required', undefined, 'missing');
  const { job, model, deprecated } = await createVideoUpscale(services, callerOf(ctx), fields, upload);
  if (deprecated) markDeprecated(ctx, services, fields.model, model.id);
  await respondWithJob(ctx, services, job, fields);
};
