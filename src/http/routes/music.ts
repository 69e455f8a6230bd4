// POST /v1/audio/music, POST /v1/audio/music/price, GET /v1/audio/music/{id},
// GET /v1/audio/music/{id}/content?index=N. Music is an async job priced flat per generation;
// a song model delivers two tracks, an instrumental model one (its `mode` is ignored).
import { z } from 'zod';
import { generationPriceUnits } from '../../billing/job-pricing.js';
import { formatRub } from '../../billing/money.js';
import { convertDecimal } from '../../billing/pricing.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import { publicJobObject } from '../../jobs/job-object.js';
import { resolveJobModel, submitJob, validateWebhookUrl } from '../../pipeline/jobs.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { jobControlFields, markDeprecated, ownJob, respondWithJob, sendJobFile } from './job-responses.js';

// The spec's fields: `prompt` (a description; at most 500 characters in simple mode, the
// vendors' limit) and `lyrics` (custom mode's words) up to 5000 characters each, `style` up to
// 500 and `title` up to 200, both empty by default. The Suno adapter fits them to the vendor.
const musicFields = z.object({
  model: z.string().min(1).optional(),
  mode: z.enum(['simple', 'custom']).default('simple'),
  prompt: z.string().min(1).max(5000).optional(),
  lyrics: z.string().min(1).max(5000).optional(),
  style: z.string().max(500).default(''),
  title: z.string().max(200).default(''),
  negative_tags: z.string().min(1).max(1000).optional(),
  ...jobControlFields,
});
type MusicFields = z.output<typeof musicFields>;

interface MusicQuote {
  readonly model: CatalogModel;
  readonly deprecated: boolean;
  readonly instrumental: boolean;
  readonly request: Record<string, unknown>;
  readonly priceUnits: bigint;
}

const missing = (field: string, why: string) => invalid(['body', field], `Field required ${why}`, undefined, 'missing');

function quoteMusic(services: ServerServices, fields: MusicFields): MusicQuote {
  const { model, deprecated } = resolveJobModel(services, fields.model, 'music', services.config.defaults.musicModel);
  const instrumental = model.config.capabilities.instrumental === true;
  let mode = fields.mode;
  // Custom mode's words: `lyrics`; a client of the older shape put them in `prompt`.
  const lyrics = fields.lyrics ?? (fields.mode === 'custom' ? fields.prompt : undefined);
  if (instrumental) {
    // No lyrics: a description (prompt), or a style and a title, is all an instrumental takes.
    mode = fields.style !== '' && fields.title !== '' ? 'custom' : 'simple';
    if (mode === 'simple' && fields.prompt === undefined) throw missing('prompt', 'for an instrumental without style and title');
  } else if (mode === 'simple') {
    if (fields.prompt === undefined) throw missing('prompt', 'in simple mode (a description of the song)');
  } else if (lyrics === undefined) {
    throw missing('lyrics', 'in custom mode (the words of the song)');
  }
  if (mode === 'simple' && fields.prompt !== undefined && fields.prompt.length > 500) {
    throw invalid(['body', 'prompt'], 'String should have at most 500 characters in simple mode (a description)', fields.prompt, 'string_too_long');
  }
  const custom = mode === 'custom';
  const request = {
    mode,
    prompt: fields.prompt,
    lyrics: custom && !instrumental ? lyrics : undefined,
    style: custom ? fields.style : undefined,
    title: custom ? fields.title : undefined,
    instrumental,
    negative_tags: fields.negative_tags,
  };
  return { model, deprecated, instrumental, request, priceUnits: generationPriceUnits(model.config.pricing) };
}

export const priceMusic: Handler = (ctx, services) => {
  const fields = validate(musicFields, ctx.request.body ?? {}, 'body');
  const quote = quoteMusic(services, fields);
  ctx.state.model = quote.model.id;
  const priceRub = formatRub(quote.priceUnits);
  ctx.body = {
    object: 'music.price',
    model: quote.model.id,
    tracks: quote.model.config.capabilities.tracks ?? 2,
    price_rub: priceRub,
    price_usd: convertDecimal(priceRub, services.config.currency.usdRub),
  };
};

export const createMusic: Handler = async (ctx, services) => {
  const fields = validate(musicFields, ctx.request.body ?? {}, 'body');
  const quote = quoteMusic(services, fields);
  ctx.state.model = quote.model.id;
  await validateWebhookUrl(services, fields.webhook_url);
  const apiKey = ctx.state.apiKey!;
  const { job } = await submitJob(services, {
    kind: 'music',
    endpoint: 'audio/music',
    accountId: apiKey.accountId,
    keyId: apiKey.id,
    model: quote.model.id,
    request: quote.request,
    identity: { ...quote.request, webhook_url: fields.webhook_url, model: quote.model.id },
    idempotencyKey: fields.idempotency_key,
    holdUnits: quote.priceUnits,
    webhookUrl: fields.webhook_url,
    requestId: ctx.state.requestId,
    prompt: fields.prompt ?? fields.lyrics ?? (fields.style || null),
    description: `music ${quote.model.id}${quote.instrumental ? ' instrumental' : ''}`,
  });
  if (quote.deprecated) markDeprecated(ctx, services, fields.model, quote.model.id);
  await respondWithJob(ctx, services, job, fields);
};

export const retrieveMusic: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, ['music'], 'music generation');
  ctx.state.model = job.model;
  if (job.status === 'queued' || job.status === 'in_progress') ctx.set('openai-poll-after-ms', '1000');
  ctx.body = publicJobObject(job, { fileTtlMs: services.config.storage.tempTtlMs });
};

export const musicContent: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, ['music'], 'music generation');
  ctx.state.model = job.model;
  const raw = ctx.query.index ?? '0';
  const index = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(index)) throw invalid(['query', 'index'], 'Input should be a valid integer', raw, 'int_parsing');
  await sendJobFile(ctx, services, job, index, 'music generation');
};
