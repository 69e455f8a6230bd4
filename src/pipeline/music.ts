// Music jobs, priced flat per generation: the fields fitted to the model (a song model takes
// lyrics in custom mode, an instrumental model none, its `mode` chosen from what it was given),
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

const missing = (field: string, why: string) => invalid(['body', field], `Field required ${why}`, undefined, 'missing');

export function quoteMusic(services: JobServices, fields: MusicFields): MusicQuote {
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

export async function createMusic(services: JobServices, caller: MediaCaller, fields: MusicFields): Promise<{ job: Job; quote: MusicQuote }> {
  const quote = quoteMusic(services, fields);
  caller.log.model = quote.model.id;
  await validateWebhookUrl(services, fields.webhook_url);
  const { apiKey } = caller;
  const { job } = await createJob(services, {
    kind: 'music',
    endpoint: 'audio/music',
    apiKey,
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
