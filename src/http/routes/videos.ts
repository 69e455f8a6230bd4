// POST /v1/videos (JSON, or multipart as openai-node always sends), POST /v1/videos/price,
// GET /v1/videos, GET /v1/videos/{id}, GET /v1/videos/{id}/content, DELETE /v1/videos/{id}.
// A video is an async job: the create call holds the price (pipeline/videos.ts) and answers the
// queued Video object (or, with `wait`, the finished one).
import { z } from 'zod';
import { formToFields, maxVideoReferenceBytes, referencesOf, videoFields, type VideoFields } from '../../dialects/openai-media/videos.js';
import { publicJobObject } from '../../jobs/job-object.js';
import type { InputFile } from '../../model/media.js';
import { createVideo as runVideo, quoteVideo } from '../../pipeline/videos.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Context, type Handler } from '../state.js';
import { markDeprecated, ownJob, respondWithJob, sendJobFile } from './job-responses.js';
import { answerPrice } from './price-answer.js';

/** Reads the body in either encoding: fields, and the uploaded reference image if any. */
async function readVideoRequest(ctx: Context): Promise<{ fields: VideoFields; upload?: InputFile }> {
  if (ctx.is('multipart/form-data')) {
    const form = await readMultipart(ctx, { maxFileBytes: maxVideoReferenceBytes, maxFiles: 1 });
    const fields = validate(videoFields, formToFields(form.fields), 'body');
    const upload = form.files.find((entry) => entry.field === 'input_reference')?.file;
    if (form.files.some((entry) => entry.field !== 'input_reference')) throw invalid(['body', form.files[0]!.field], 'the only file field is input_reference');
    return { fields, upload };
  }
  return { fields: validate(videoFields, ctx.request.body ?? {}, 'body') };
}

export const priceVideo: Handler = async (ctx, services) => {
  const { fields, upload } = await readVideoRequest(ctx);
  const quote = quoteVideo(services, fields, referencesOf(fields, upload).length);
  answerPrice(ctx, services, { object: 'video.price', model: quote.modelId, priceUnits: quote.priceUnits }, { seconds: String(quote.seconds), size: quote.size, references: quote.references });
};

export const createVideo: Handler = async (ctx, services) => {
  const { fields, upload } = await readVideoRequest(ctx);
  const { job, quote } = await runVideo(services, callerOf(ctx), fields, referencesOf(fields, upload));
  if (quote.deprecated) markDeprecated(ctx, services, fields.model, quote.modelId);
  await respondWithJob(ctx, services, job, fields);
};

export const retrieveVideo: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, ['video', 'video_upscale'], 'video');
  ctx.state.model = job.model;
  // Pollers (openai-python's poll helper, openai-node's pollers) pace themselves by this header.
  if (job.status === 'queued' || job.status === 'in_progress') ctx.set('openai-poll-after-ms', '1000');
  ctx.body = publicJobObject(job, { fileTtlMs: services.config.storage.tempTtlMs });
};

export const videoContent: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, ['video', 'video_upscale'], 'video');
  ctx.state.model = job.model;
  const variant = ctx.query.variant ?? 'video';
  if (variant === 'thumbnail' || variant === 'spritesheet') {
    // The spec's variants; only the video itself is kept, so these are a clear 404, not a 422.
    throw new GatewayError('variant_not_available', `The ${variant} of video '${job.id}' is not available: this gateway stores only the video (variant=video).`, { param: 'variant' });
  }
  if (variant !== 'video') throw invalid(['query', 'variant'], "Input should be 'video', 'thumbnail' or 'spritesheet'", variant, 'enum');
  await sendJobFile(ctx, services, job, 0, 'video');
};

const videoKinds = ['video', 'video_upscale'] as const;

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).max(200).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
});

/** GET /v1/videos: OpenAI's ConversationCursorPage, as the SDK's videos.list() pages it (`after` = the last id). */
export const listVideos: Handler = async (ctx, services) => {
  const query = validate(listQuery, ctx.query, 'query');
  const page = await services.jobs.page(ctx.state.apiKey!.accountId, videoKinds, { afterId: query.after, limit: query.limit, order: query.order });
  if (!page) throw invalid(['query', 'after'], `no video '${query.after}' in this account to list after`, query.after);
  const data = page.jobs.map((job) => publicJobObject(job, { fileTtlMs: services.config.storage.tempTtlMs }));
  ctx.body = { object: 'list', data, has_more: page.hasMore, first_id: page.jobs[0]?.id ?? null, last_id: page.jobs.at(-1)?.id ?? null };
};

/**
 * DELETE /v1/videos/{id}: the stored content goes at once and the video is gone for its owner
 * (retrieve, content, list and a second delete are 404s, as on OpenAI); the job row stays
 * marked deleted: it was charged, and the ledger and the generation history keep pointing at it.
 */
export const deleteVideo: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, [...videoKinds], 'video');
  ctx.state.model = job.model;
  if (job.status === 'queued' || job.status === 'in_progress') {
    throw new GatewayError('video_not_finished', `Video '${job.id}' is still ${job.status}: delete it once it has finished.`);
  }
  // Marked first: a concurrent second delete finds it gone instead of answering deleted twice.
  if (!(await services.jobs.markDeleted(job.accountId, job.id))) throw new GatewayError('not_found', `No video found with id '${job.id}'.`);
  for (const fileId of job.result?.fileIds ?? []) await services.files.remove(job.accountId, fileId);
  ctx.body = { id: job.id, object: 'video.deleted', deleted: true };
};
