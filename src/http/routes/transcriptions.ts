// POST /v1/audio/transcriptions (multipart): the file is capped at 25 MB while it streams,
// its duration is measured from the audio itself and charged per minute, prorated to the
// second; the upstream's answer is returned as it gave it (JSON, or text for text/srt/vtt).
import { z } from 'zod';
import { priceInUnits } from '../../billing/pricing.js';
import { audioSeconds } from '../../media/inspect.js';
import type { TranscriptionRequest, TranscriptionResult } from '../../model/media.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import type { Handler } from '../state.js';
import { transcriptEvents } from './audio-events.js';

export const maxTranscriptionBytes = 25 * 1024 * 1024;

const transcriptionFields = z.object({
  model: z.string().min(1).optional(),
  language: z.string().min(2).max(16).optional(),
  prompt: z.string().max(4096).optional(),
  response_format: z.enum(['json', 'text', 'srt', 'verbose_json', 'vtt']).default('json'),
  temperature: z.coerce.number().min(0).max(1).optional(),
  // Multipart sends it as a string. `true`: transcript.text.delta/done events (audio-events.ts).
  stream: z.enum(['true', 'false']).default('false'),
});

export const createTranscription: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxTranscriptionBytes, maxFiles: 1 });
  const fields = validate(transcriptionFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'file');
  if (!upload) throw invalid(['body', 'file'], 'Field required', undefined, 'missing');
  const stream = fields.stream === 'true';
  if (stream && fields.response_format !== 'json' && fields.response_format !== 'text') {
    throw invalid(['body', 'response_format'], "Input should be 'json' or 'text' with stream: true (the events carry the text)", fields.response_format, 'enum');
  }
  const model = resolveMediaModel(services, fields.model, ['stt']);
  ctx.state.model = model.id;
  const seconds = await audioSeconds(upload.file.data, upload.file.mediaType);
  if (seconds === undefined) throw invalid(['body', 'file'], 'the file is not audio the gateway can decode (mp3, wav, m4a, ogg, flac, webm)');
  const price = priceInUnits([{ quantity: Math.ceil(seconds), price: model.config.pricing.per_minute ?? '0', per: 60 }]);
  const { result, chargedUnits } = await chargedMediaCall<TranscriptionRequest, TranscriptionResult>(services, {
    apiKey: ctx.state.apiKey!,
    requestId: ctx.state.requestId,
    model,
    operation: 'transcribe',
    request: { file: upload.file, language: fields.language, prompt: fields.prompt, responseFormat: fields.response_format, temperature: fields.temperature },
    holdUnits: price,
    actualUnits: () => price,
    description: `transcription ${model.id} (${Math.ceil(seconds)} s)`,
  });
  ctx.state.chargedUnits = chargedUnits;
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
