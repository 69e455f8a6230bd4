// Video upscale jobs: the hold is computed from the file itself (its real resolution and
// duration, read from the MP4 boxes) × factor² per megapixel-second; the input is stored as a
// file of the account and the job created with its hold (jobs.ts). The job settles to the cost
// the upscaler reports (job-collect). The price endpoint quotes the hold (quoteVideoUpscale).
import { videoUpscalePriceUnits } from '../billing/job-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { VideoUpscaleFields } from '../dialects/openai-media/video-upscale.js';
import type { Job } from '../jobs/job.js';
import { readMp4Info } from '../media-files/mp4.js';
import type { InputFile } from '../model/media.js';
import { invalid } from '../validation/zod-details.js';
import { createJob, resolveJobModel, validateWebhookUrl, type JobServices } from './jobs.js';
import type { MediaCaller } from './media.js';

/** Output side: the input's side × factor, rounded to an even number (what video encoders need). */
export function upscaledSide(side: number, factorHundredths: number): number {
  return Math.round((side * factorHundredths) / 200) * 2;
}

export interface VideoUpscaleQuote {
  readonly model: CatalogModel;
  readonly deprecated: boolean;
  readonly info: { readonly width: number; readonly height: number; readonly durationSeconds: number };
  readonly factorHundredths: number;
  /** The hold: the most the job can cost (it settles to the upscaler's reported cost, never more). */
  readonly priceUnits: bigint;
}

/** The file read and priced with the model: the job's hold and the price endpoint both come from it. */
export function quoteVideoUpscale(services: JobServices, fields: VideoUpscaleFields, upload: InputFile): VideoUpscaleQuote {
  const info = readMp4Info(upload.data);
  if (!info || info.width <= 0 || info.height <= 0 || info.durationSeconds <= 0) {
    throw invalid(['body', 'video'], `"${upload.filename}" is not an MP4 video whose size and duration can be read`);
  }
  const { model, deprecated } = resolveJobModel(services, fields.model, 'video', services.config.defaults.videoUpscaleModel, (candidate) => candidate.config.pricing.per_megapixel_second !== undefined);
  const factorHundredths = Math.round(fields.upscale_factor * 100);
  const durationMs = Math.round(info.durationSeconds * 1000);
  const priceUnits = videoUpscalePriceUnits(model.config.pricing, { width: info.width, height: info.height, durationMs, factorHundredths });
  return { model, deprecated, info, factorHundredths, priceUnits };
}

export async function createVideoUpscale(services: JobServices, caller: MediaCaller, fields: VideoUpscaleFields, upload: InputFile): Promise<{ job: Job; model: CatalogModel; deprecated: boolean }> {
  const { model, deprecated, info, factorHundredths, priceUnits: holdUnits } = quoteVideoUpscale(services, fields, upload);
  caller.log.model = model.id;
  await validateWebhookUrl(services, fields.webhook_url);
  const { apiKey } = caller;
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
  const { job } = await createJob(services, {
    kind: 'video_upscale',
    endpoint: 'videos/upscale',
    apiKey,
    scope: caller.scope,
    model: model.id,
    request,
    identity: { ...request, video_file_id: undefined, video: file.sha256, webhook_url: fields.webhook_url, model: model.id },
    idempotencyKey: fields.idempotency_key,
    holdUnits,
    webhookUrl: fields.webhook_url,
    requestId: caller.requestId,
    prompt: fields.prompt,
    description: `video upscale ${model.id} ×${request.upscale_factor} ${info.width}x${info.height} ${request.seconds}s`,
  });
  return { job, model, deprecated };
}
