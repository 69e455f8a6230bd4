// Music jobs, priced flat per generation: the fields fitted to the model (a song model takes
// lyrics in custom mode, an instrumental model none and its `mode` follows what it was given),
// priced (the price endpoint calls the same quote), and the job created with its hold (jobs.ts).
import { generationPriceUnits } from '../billing/job-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { MusicFields } from '../dialects/openai-media/music.js';
import type { Job } from '../jobs/job.js';
import { invalid } from '../validation/zod-details.js';
import { createJob, resolveJobModel, validateWebhookUrl, type JobServices } from './jobs.js';
import type { MediaCaller } from './media.js';

export interface MusicQuote {
  readonly model: CatalogModel;
  readonly deprecated: boolean;
  readonly instrumental: boolean;
  readonly request: Record<string, unknown>;
  readonly priceUnits: bigint;
}

const missing = (field: string, why: string) => invalid(['body', field], `Field required${why}`, undefined, 'missing');

/** What stands in for a description when `prompt` is left out: the title and the style given. */
function describedBy(fields: MusicFields): string | undefined {
  const parts = [fields.title, fields.style].filter((part) => part !== '');
  return parts.length > 0 ? parts.join(' — ') : undefined;
}

/**
 * A song model: custom mode when words are given (`lyrics`, or in custom mode a `prompt` of the
 * older shape); otherwise simple mode, whose description is the `prompt`, else the title and
 * style (nothing of the request left unused).
 */
function songRequest(fields: MusicFields): Record<string, unknown> {
  const lyrics = fields.lyrics ?? (fields.mode === 'custom' ? fields.prompt : undefined);
  if (fields.mode === 'custom' || fields.lyrics !== undefined) {
    if (lyrics === undefined) throw missing('lyrics', ' in custom mode (the words of the song)');
    return { mode: 'custom', prompt: fields.prompt, lyrics, style: fields.style, title: fields.title };
  }
  const description = fields.prompt ?? describedBy(fields);
  if (description === undefined) throw missing('prompt', ': a description (prompt), or lyrics, style or title');
  return { mode: 'simple', prompt: description };
}

/**
 * An instrumental model ignores `mode` (it has no words): custom mode when both a style and a
 * title are given, else a description — the `prompt`, else the title or style given.
 */
function instrumentalRequest(fields: MusicFields): Record<string, unknown> {
  if (fields.style !== '' && fields.title !== '') return { mode: 'custom', prompt: fields.prompt, style: fields.style, title: fields.title };
  const description = fields.prompt ?? describedBy(fields);
  if (description === undefined) throw missing('prompt', ': a description (prompt), or a style and a title');
  return { mode: 'simple', prompt: description };
}

// `prompt` takes up to 5000 characters in every mode (the spec); a vendor with a smaller limit
// is fitted by its adapter.
export function quoteMusic(services: JobServices, fields: MusicFields): MusicQuote {
  const { model, deprecated } = resolveJobModel(services, fields.model, 'music', services.config.defaults.musicModel);
  const instrumental = model.config.capabilities.instrumental === true;
  const request = { ...(instrumental ? instrumentalRequest(fields) : songRequest(fields)), instrumental, negative_tags: fields.negative_tags };
  return { model, deprecated, instrumental, request, priceUnits: generationPriceUnits(model.config.pricing) };
}

export async function createMusic(services: JobServices, caller: MediaCaller, fields: MusicFields): Promise<{ job: Job; quote: MusicQuote }> {
  const quote = quoteMusic(services, fields);
  caller.log.model = quote.model.id;
  await validateWebhookUrl(services, fields.webhook_url);
  const { apiKey } = caller;
  const { job } = await createJob(services, {
    kind: 'music',
    endpoint: 'audio/music',
    apiKey,
    scope: caller.scope,
    model: quote.model.id,
    request: quote.request,
    identity: { ...quote.request, webhook_url: fields.webhook_url, model: quote.model.id },
    idempotencyKey: fields.idempotency_key,
    holdUnits: quote.priceUnits,
    webhookUrl: fields.webhook_url,
    requestId: caller.requestId,
    prompt: fields.prompt ?? fields.lyrics ?? (fields.style || null),
    description: `music ${quote.model.id}${quote.instrumental ? ' instrumental' : ''}`,
  });
  return { job, quote };
}
