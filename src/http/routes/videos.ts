// POST /v1/videos (JSON, or multipart as openai-node always sends), POST /v1/videos/price,
// GET /v1/videos/{id}, GET /v1/videos/{id}/content. A video is an async job: the create call
// holds the price and answers the queued Video object (or, with `wait`, the finished one).
import { z } from 'zod';
import { formatRub } from '../../billing/money.js';
import { videoPriceUnits } from '../../billing/job-pricing.js';
import { convertDecimal } from '../../billing/pricing.js';
import { isDataUrl, parseDataUrl } from '../../dialects/shared/data-url.js';
import { imageType } from '../../media/inspect.js';
import { publicJobObject } from '../../jobs/job-object.js';
import type { InputFile } from '../../model/media.js';
import { resolveJobModel, submitJob, validateWebhookUrl } from '../../pipeline/jobs.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { ApiError } from '../errors.js';
import { readMultipart } from '../multipart.js';
import type { Context, Handler } from '../state.js';
import { jobControlFields, markDeprecated, ownJob, respondWithJob, sendJobFile } from './job-responses.js';

/** A reference image may be this large (OpenAI's own limit for input_reference). */
const maxReferenceBytes = 25 * 1024 * 1024;

const videoFields = z.object({
  // The spec's pages give 1–4000 and 1–32000; the wider bound is taken so no valid prompt is refused.
  prompt: z.string().min(1).max(32_000),
  model: z.string().min(1).optional(),
  seconds: z.union([z.string().regex(/^\d{1,3}$/, 'expected whole seconds such as "4"'), z.number().int().positive().max(600)]).optional(),
  size: z.string().regex(/^\d{2,5}x\d{2,5}$/, 'expected a size "<width>x<height>" such as "1280x720"').optional(),
  seed: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  // The spec's shapes: an uploaded file (multipart), {file_id} or {image_url} (a base64 data:
  // URL; remote URLs are refused, the gateway fetches nothing), or the same as a plain string;
  // and `input_references`, a list of such strings. Each one is priced (per_reference).
  input_reference: z
    .union([z.string().min(1), z.object({ file_id: z.union([z.string().min(1), z.number().int().positive()]).optional(), image_url: z.string().min(1).optional() }).strict()])
    .optional(),
  input_references: z.array(z.string().min(1)).max(16).optional(),
  ...jobControlFields,
});
type VideoFields = z.output<typeof videoFields>;

/** Multipart scalars are strings: the same schema after turning "true"/"false" into booleans. */
function formToFields(form: Record<string, string>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...form };
  if (form.wait !== undefined) fields.wait = form.wait === 'true' || form.wait === '1';
  if (form.wait_timeout !== undefined) fields.wait_timeout = Number(form.wait_timeout);
  if (form['input_reference[file_id]'] !== undefined || form['input_reference[image_url]'] !== undefined) {
    fields.input_reference = { file_id: form['input_reference[file_id]'], image_url: form['input_reference[image_url]'] };
    delete fields['input_reference[file_id]'];
    delete fields['input_reference[image_url]'];
  }
  return fields;
}

interface VideoQuote {
  readonly fields: VideoFields;
  readonly modelId: string;
  readonly deprecated: boolean;
  readonly seconds: number;
  readonly size: string;
  readonly references: number;
  readonly priceUnits: bigint;
}

function quoteVideo(services: ServerServices, fields: VideoFields, references: number): VideoQuote {
  const { model, deprecated } = resolveJobModel(services, fields.model, 'video', services.config.defaults.videoModel, (candidate) => candidate.config.pricing.per_second !== undefined);
  const capabilities = model.config.capabilities;
  const seconds = fields.seconds === undefined ? (capabilities.durations?.[0] ?? 4) : Number(fields.seconds);
  if (capabilities.durations && !capabilities.durations.includes(seconds)) {
    throw invalid(['body', 'seconds'], `Input should be ${capabilities.durations.map((d) => `'${d}'`).join(', ')} for ${model.id}`, fields.seconds, 'enum');
  }
  const size = fields.size ?? capabilities.sizes?.[0] ?? '720x1280';
  if (capabilities.sizes && !capabilities.sizes.includes(size)) {
    throw invalid(['body', 'size'], `Input should be ${capabilities.sizes.map((s) => `'${s}'`).join(', ')} for ${model.id}`, size, 'enum');
  }
  const maxReferences = capabilities.references ? (capabilities.max_references ?? 1) : 0;
  if (references > maxReferences) throw invalid(['body', 'input_reference'], `${model.id} takes at most ${maxReferences} reference image(s)`);
  const priceUnits = videoPriceUnits(model.config.pricing, { seconds, size, references });
  if (priceUnits === undefined) throw invalid(['body', 'size'], `${model.id} has no price for ${size}`, size);
  return { fields, modelId: model.id, deprecated, seconds, size, references, priceUnits };
}

/** Reads the body in either encoding: fields, and the uploaded reference image if any. */
async function readVideoRequest(ctx: Context): Promise<{ fields: VideoFields; upload?: InputFile }> {
  if (ctx.is('multipart/form-data')) {
    const form = await readMultipart(ctx, { maxFileBytes: maxReferenceBytes, maxFiles: 1 });
    const fields = validate(videoFields, formToFields(form.fields), 'body');
    const upload = form.files.find((entry) => entry.field === 'input_reference')?.file;
    if (form.files.some((entry) => entry.field !== 'input_reference')) throw invalid(['body', form.files[0]!.field], 'the only file field is input_reference');
    return { fields, upload };
  }
  return { fields: validate(videoFields, ctx.request.body ?? {}, 'body') };
}

/** A reference image as the request names it: a stored file of the account, or inline bytes. */
type Reference = { readonly loc: (string | number)[] } & ({ readonly fileId: number } | { readonly inline: InputFile });

/** A reference string: a file id ("123", "file-123") or a base64 data: URL; anything else is refused by field. */
function referenceOf(value: string | number, loc: (string | number)[]): Reference {
  const text = String(value).trim();
  const id = /^(?:file[-_])?(\d{1,15})$/.exec(text)?.[1];
  if (id !== undefined && Number(id) > 0) return { loc, fileId: Number(id) };
  if (isDataUrl(text)) {
    const parts = parseDataUrl(text);
    if (!parts) throw invalid(loc, 'a data: URL must be base64 ("data:image/png;base64,…")', text.slice(0, 64));
    return { loc, inline: { data: Buffer.from(parts.data, 'base64'), mediaType: parts.mediaType, filename: 'reference' } };
  }
  if (/^https?:\/\//i.test(text)) throw invalid(loc, 'image URLs are not fetched by this gateway: upload the image, or give a file id or a base64 data: URL', text);
  throw invalid(loc, 'expected a file id or a base64 data: URL of an image', text.slice(0, 64));
}

/** Every reference image of the request, in order: the upload, input_reference, input_references. */
function referencesOf(fields: VideoFields, upload: InputFile | undefined): Reference[] {
  const references: Reference[] = [];
  if (upload) references.push({ loc: ['body', 'input_reference'], inline: upload });
  const single = fields.input_reference;
  if (typeof single === 'string') references.push(referenceOf(single, ['body', 'input_reference']));
  else if (single?.file_id !== undefined) references.push(referenceOf(single.file_id, ['body', 'input_reference', 'file_id']));
  else if (single?.image_url !== undefined) references.push(referenceOf(single.image_url, ['body', 'input_reference', 'image_url']));
  fields.input_references?.forEach((value, index) => references.push(referenceOf(value, ['body', 'input_references', index])));
  return references;
}

/** A reference as a stored image file of the account (inline bytes are saved as an upload). */
async function storedReference(services: ServerServices, accountId: string, reference: Reference): Promise<{ id: number; sha256: string }> {
  if ('fileId' in reference) {
    const file = await services.files.get(accountId, reference.fileId);
    if (!file || !file.mediaType.startsWith('image/')) throw invalid(reference.loc, `no image file ${reference.fileId} in this account`, reference.fileId);
    return { id: file.id, sha256: file.sha256 };
  }
  const type = imageType(reference.inline.data);
  if (!type) throw invalid(reference.loc, `"${reference.inline.filename}" is not a PNG, JPEG or WebP image`);
  const file = await services.files.save(accountId, 'upload', type, reference.inline.data, { filename: reference.inline.filename });
  return { id: file.id, sha256: file.sha256 };
}

export const priceVideo: Handler = async (ctx, services) => {
  const { fields, upload } = await readVideoRequest(ctx);
  const quote = quoteVideo(services, fields, referencesOf(fields, upload).length);
  ctx.state.model = quote.modelId;
  const priceRub = formatRub(quote.priceUnits);
  ctx.body = {
    object: 'video.price',
    model: quote.modelId,
    seconds: String(quote.seconds),
    size: quote.size,
    references: quote.references,
    price_rub: priceRub,
    price_usd: convertDecimal(priceRub, services.config.currency.usdRub),
  };
};

export const createVideo: Handler = async (ctx, services) => {
  const { fields, upload } = await readVideoRequest(ctx);
  const references = referencesOf(fields, upload);
  // The count prices the job (quote and hold alike); quoteVideo refuses more than the model takes.
  const quote = quoteVideo(services, fields, references.length);
  ctx.state.model = quote.modelId;
  await validateWebhookUrl(services, fields.webhook_url);
  const apiKey = ctx.state.apiKey!;
  const stored = [];
  for (const reference of references) stored.push(await storedReference(services, apiKey.accountId, reference));
  // The OpenAI-style video upstreams take one reference image; every configured video model
  // declares max_references 1, so no priced reference goes unsent.
  const referenceFileId = stored[0]?.id;
  const referenceSha = stored.length > 1 ? stored.map((file) => file.sha256).join(',') : stored[0]?.sha256;
  const request = { prompt: fields.prompt, seconds: quote.seconds, size: quote.size, seed: fields.seed, reference_file_id: referenceFileId };
  const { job } = await submitJob(services, {
    kind: 'video',
    endpoint: 'videos',
    accountId: apiKey.accountId,
    keyId: apiKey.id,
    model: quote.modelId,
    request,
    // The same request is the same prompt, options and reference bytes (not the upload's new file id).
    identity: { ...request, reference_file_id: undefined, reference: referenceSha, webhook_url: fields.webhook_url, model: quote.modelId },
    idempotencyKey: fields.idempotency_key,
    holdUnits: quote.priceUnits,
    webhookUrl: fields.webhook_url,
    requestId: ctx.state.requestId,
    prompt: fields.prompt,
    description: `video ${quote.modelId} ${quote.seconds}s ${quote.size}`,
  });
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
    throw new ApiError(404, `The ${variant} of video '${job.id}' is not available: this gateway stores only the video (variant=video).`, { code: 'variant_not_available', type: 'invalid_request_error', param: 'variant' });
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
 * DELETE /v1/videos/{id}: the stored content goes at once; the job stays (it was charged, and
 * the ledger and history keep pointing at it), and its content is then a 404.
 */
export const deleteVideo: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, [...videoKinds], 'video');
  ctx.state.model = job.model;
  if (job.status === 'queued' || job.status === 'in_progress') {
    throw new ApiError(409, `Video '${job.id}' is still ${job.status}: delete it once it has finished.`, { code: 'video_not_finished', type: 'invalid_request_error' });
  }
  for (const fileId of job.result?.fileIds ?? []) await services.files.remove(job.accountId, fileId);
  ctx.body = { id: job.id, object: 'video.deleted', deleted: true };
};
