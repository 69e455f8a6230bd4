// POST /v1/audio/transcriptions (multipart): the file is capped at 25 MB while it streams; the
// pipeline measures its duration and charges it (pipeline/audio.ts); the upstream's answer is
// returned as it gave it (JSON, or text for text/srt/vtt), or as transcript events.
// POST /v1/audio/transcriptions/price: the same form priced by the same quote (the file measured), nothing charged.
import { maxTranscriptionBytes, transcriptionFields } from '../../dialects/openai-media/audio.js';
import { transcriptEvents } from '../../dialects/openai-media/audio-events.js';
import { quoteTranscription, transcribe } from '../../pipeline/audio.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Context, type Handler } from '../state.js';
import { answerPrice } from './price-answer.js';

async function readTranscriptionRequest(ctx: Context) {
  const form = await readMultipart(ctx, { maxFileBytes: maxTranscriptionBytes, maxFiles: 1 });
  const fields = validate(transcriptionFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'file');
  if (!upload) throw invalid(['body', 'file'], 'Field required', undefined, 'missing');
  return { fields, upload };
}

export const priceTranscription: Handler = async (ctx, services) => {
  const { fields, upload } = await readTranscriptionRequest(ctx);
  const quote = await quoteTranscription(services, fields, upload.file);
  answerPrice(ctx, services, { object: 'transcription.price', model: quote.model.id, priceUnits: quote.priceUnits }, { seconds: quote.seconds });
};

export const createTranscription: Handler = async (ctx, services) => {
  const { fields, upload } = await readTranscriptionRequest(ctx);
  const stream = fields.stream === 'true';
  if (stream && fields.response_format !== 'json' && fields.response_format !== 'text') {
    throw invalid(['body', 'response_format'], "Input should be 'json' or 'text' with stream: true (the events carry the text)", fields.response_format, 'enum');
  }
  const result = await transcribe(services, callerOf(ctx), fields, upload.file);
  if (stream) {
    ctx.type = 'text/event-stream';
    ctx.set('cache-control', 'no-cache');
    const usage = typeof result.body === 'object' && result.body !== null ? (result.body as { usage?: unknown }).usage : undefined;
    ctx.body = transcriptEvents(result.text, usage);
    return;
  }
  ctx.type = result.contentType;
  ctx.body = result.body;
};
