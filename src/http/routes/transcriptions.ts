// POST /v1/audio/transcriptions (multipart): the file is capped at 25 MB while it streams; the
// pipeline measures its duration and charges it (pipeline/audio.ts); the upstream's answer is
// returned as it gave it (JSON, or text for text/srt/vtt), or as transcript events.
import { maxTranscriptionBytes, transcriptionFields } from '../../dialects/openai-media/audio.js';
import { transcriptEvents } from '../../dialects/openai-media/audio-events.js';
import { transcribe } from '../../pipeline/audio.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Handler } from '../state.js';

export const createTranscription: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxTranscriptionBytes, maxFiles: 1 });
  const fields = validate(transcriptionFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'file');
  if (!upload) throw invalid(['body', 'file'], 'Field required', undefined, 'missing');
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
