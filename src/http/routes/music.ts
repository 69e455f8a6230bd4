// POST /v1/audio/music, POST /v1/audio/music/price, GET /v1/audio/music/{id},
// GET /v1/audio/music/{id}/content?index=N. Music is an async job priced flat per generation
// (pipeline/music.ts); a song model delivers two tracks, an instrumental model one.
import { musicFields } from '../../dialects/openai-media/music.js';
import { publicJobObject } from '../../jobs/job-object.js';
import { createMusic as runMusic, quoteMusic } from '../../pipeline/music.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { callerOf, type Handler } from '../state.js';
import { markDeprecated, ownJob, respondWithJob, sendJobFile } from './job-responses.js';
import { answerPrice } from './price-answer.js';

export const priceMusic: Handler = (ctx, services) => {
  const fields = validate(musicFields, ctx.request.body ?? {}, 'body');
  const quote = quoteMusic(services, fields);
  answerPrice(ctx, services, { object: 'music.price', model: quote.model.id, priceUnits: quote.priceUnits }, { tracks: quote.model.config.capabilities.tracks ?? 2 });
};

export const createMusic: Handler = async (ctx, services) => {
  const fields = validate(musicFields, ctx.request.body ?? {}, 'body');
  const { job, quote } = await runMusic(services, callerOf(ctx), fields);
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
