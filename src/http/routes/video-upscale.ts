// POST /v1/videos/upscale (multipart): `video` (MP4), `prompt`, `upscale_factor` 1.5–3.0,
// `creativity` 0–1. Priced from the file itself and submitted as a job (pipeline/video-upscale.ts);
// polled like any video: GET /v1/videos/{id}. POST /v1/videos/upscale/price: the same form priced
// as the job's hold (the most it can cost; it settles to the upscaler's reported cost).
import { maxUpscaleVideoBytes, videoUpscaleFields } from '../../dialects/openai-media/video-upscale.js';
import { createVideoUpscale, quoteVideoUpscale, upscaledSide } from '../../pipeline/video-upscale.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Context, type Handler } from '../state.js';
import { markDeprecated, respondWithJob } from './job-responses.js';
import { answerPrice } from './price-answer.js';

async function readUpscaleRequest(ctx: Context) {
  const form = await readMultipart(ctx, { maxFileBytes: maxUpscaleVideoBytes, maxFiles: 1 });
  const fields = validate(videoUpscaleFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'video')?.file;
  if (!upload) throw invalid(['body', 'video'], 'Field required', undefined, 'missing');
  return { fields, upload };
}

export const priceVideoUpscale: Handler = async (ctx, services) => {
  const { fields, upload } = await readUpscaleRequest(ctx);
  const quote = quoteVideoUpscale(services, fields, upload);
  answerPrice(ctx, services, { object: 'video.upscale.price', model: quote.model.id, priceUnits: quote.priceUnits }, {
    seconds: Number(quote.info.durationSeconds.toFixed(3)),
    input_size: `${quote.info.width}x${quote.info.height}`,
    size: `${upscaledSide(quote.info.width, quote.factorHundredths)}x${upscaledSide(quote.info.height, quote.factorHundredths)}`,
  });
};

export const upscaleVideo: Handler = async (ctx, services) => {
  const { fields, upload } = await readUpscaleRequest(ctx);
  const { job, model, deprecated } = await createVideoUpscale(services, callerOf(ctx), fields, upload);
  if (deprecated) markDeprecated(ctx, services, fields.model, model.id);
  await respondWithJob(ctx, services, job, fields);
};
