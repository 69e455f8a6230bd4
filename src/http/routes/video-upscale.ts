// POST /v1/videos/upscale (multipart): `video` (MP4), `prompt`, `upscale_factor` 1.5–3.0,
// `creativity` 0–1. The hold is computed from the file itself (its real resolution and
// duration, read from the MP4 boxes) × factor² per megapixel-second; the job settles to the
// cost the upscaler reports. Polled like any video: GET /v1/videos/{id}.
import { z } from 'zod';
import { videoUpscalePriceUnits } from '../../billing/job-pricing.js';
import { readMp4Info } from '../../media/mp4.js';
import { resolveJobModel, submitJob, validateWebhookUrl } from '../../pipeline/jobs.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import type { Handler } from '../state.js';
import { jobControlFields, markDeprecated, respondWithJob } from './job-responses.js';

/** Largest video accepted for upscaling (kept in memory while read; see multipart.ts). */
export const maxUpscaleVideoBytes = 100 * 1024 * 1024;
export const defaultUpscalePrompt = 'Upscale this video faithfully: keep its content, motion and colours; add natural detail only.';

const upscaleFields = z.object({
  model: z.string().min(1).optional(),
  prompt: z.string().min(1).max(32_000).default(defaultUpscalePrompt),
  upscale_factor: z.coerce.number().min(1.5).max(3).multipleOf(0.01).default(1.5),
  creativity: z.coerce.number().min(0).max(1).default(0),
  ...jobControlFields,
  wait: z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1').default(false),
  wait_timeout: z.coerce.number().int().min(1).max(300).default(60),
});

/** Output side: the input's side × factor, rounded to an even number (what video encoders need). */
export function upscaledSide(side: number, factorHundredths: number): number {
  return Math.round((side * factorHundredths) / 200) * 2;
}

export const upscaleVideo: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxUpscaleVideoBytes, maxFiles: 1 });
  const fields = validate(upscaleFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'video')?.file;
  if (!upload) throw invalid(['body', 'video'], 'Field required', undefined, 'missing');
  const info = readMp4Info(upload.data);
  if (!info || info.width <= 0 || info.height <= 0 || info.durationSeconds <= 0) {
    throw invalid(['body', 'video'], `"${upload.filename}" is not an MP4 video whose size and duration can be read`);
  }
  const { model, deprecated } = resolveJobModel(services, fields.model, 'video', services.config.defaults.videoUpscaleModel, (candidate) => candidate.config.pricing.per_megapixel_second !== undefined);
  ctx.state.model = model.id;
  await validateWebhookUrl(services, fields.webhook_url);
  const factorHundredths = Math.round(fields.upscale_factor * 100);
  const durationMs = Math.round(info.durationSeconds * 1000);
  const holdUnits = videoUpscalePriceUnits(model.config.pricing, { width: info.width, height: info.height, durationMs, factorHundredths });
  const apiKey = ctx.state.apiKey!;
  const file = await services.files.save(apiKey.accountId, 'upload', 'video/mp4', upload.data, { filename: upload.filename });
  const request = {
    prompt: fields.prompt,
    upscale_factor: factorHundredths / 100,
    creativity: fields.creativity,
    video_file_id: file.id,
    input_width: info.width,
    input_height: info.height,
    input_seconds: info.durationSeconds,
    seconds: Number(info.durationSeconds.toFixed(3)),
    size: `${upscaledSide(info.width, factorHundredths)}x${upscaledSide(info.height, factorHundredths)}`,
  };
  const { job } = await submitJob(services, {
    kind: 'video_upscale',
    endpoint: 'videos/upscale',
    accountId: apiKey.accountId,
    keyId: apiKey.id,
    model: model.id,
    request,
    identity: { ...request, video_file_id: undefined, video: file.sha256, webhook_url: fields.webhook_url, model: model.id },
    idempotencyKey: fields.idempotency_key,
    holdUnits,
    webhookUrl: fields.webhook_url,
    requestId: ctx.state.requestId,
    prompt: fields.prompt,
    description: `video upscale ${model.id} ×${request.upscale_factor} ${info.width}x${info.height} ${request.seconds}s`,
  });
  if (deprecated) markDeprecated(ctx, services, fields.model, model.id);
  await respondWithJob(ctx, services, job, fields);
};
