// Video jobs: the request checked against the model's durations, sizes and reference count and
// priced (the price endpoint calls the same quote); its reference images stored as files of
// the account; the job created with its hold (jobs.ts). The runner takes it from there.
import { videoPriceUnits } from '../billing/job-pricing.js';
import type { Reference, VideoFields } from '../dialects/openai-media/videos.js';
import type { Job } from '../jobs/job.js';
import { imageType } from '../media-files/inspect.js';
import { invalid } from '../validation/zod-details.js';
import { createJob, resolveJobModel, validateWebhookUrl, type JobServices } from './jobs.js';
import type { MediaCaller } from './media.js';

export interface VideoQuote {
  readonly modelId: string;
  readonly deprecated: boolean;
  readonly seconds: number;
  readonly size: string;
  readonly references: number;
  readonly priceUnits: bigint;
}

export function quoteVideo(services: JobServices, fields: VideoFields, references: number): VideoQuote {
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
  return { modelId: model.id, deprecated, seconds, size, references, priceUnits };
}

/** A reference as a stored image file of the account (inline bytes are saved as an upload). */
async function storedReference(services: JobServices, accountId: string, reference: Reference): Promise<{ id: number; sha256: string }> {
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

export async function createVideo(services: JobServices, caller: MediaCaller, fields: VideoFields, references: readonly Reference[]): Promise<{ job: Job; quote: VideoQuote }> {
  // The count prices the job (quote and hold alike); quoteVideo refuses more than the model takes.
  const quote = quoteVideo(services, fields, references.length);
  caller.log.model = quote.modelId;
  await validateWebhookUrl(services, fields.webhook_url);
  const { apiKey } = caller;
  const stored = [];
  for (const reference of references) stored.push(await storedReference(services, apiKey.accountId, reference));
  // The OpenAI-style video upstreams take one reference image; every configured video model
  // declares max_references 1, so no priced reference goes unsent.
  const referenceFileId = stored[0]?.id;
  const referenceSha = stored.length > 1 ? stored.map((file) => file.sha256).join(',') : stored[0]?.sha256;
  const request = { prompt: fields.prompt, seconds: quote.seconds, size: quote.size, seed: fields.seed, reference_file_id: referenceFileId };
  const { job } = await createJob(services, {
    kind: 'video',
    endpoint: 'videos',
    apiKey,
    scope: caller.scope,
    model: quote.modelId,
    request,
    // The same request is the same prompt, options and reference bytes (not the upload's new file id).
    identity: { ...request, reference_file_id: undefined, reference: referenceSha, webhook_url: fields.webhook_url, model: quote.modelId },
    idempotencyKey: fields.idempotency_key,
    holdUnits: quote.priceUnits,
    webhookUrl: fields.webhook_url,
    requestId: caller.requestId,
    prompt: fields.prompt,
    description: `video ${quote.modelId} ${quote.seconds}s ${quote.size}`,
  });
  return { job, quote };
}
