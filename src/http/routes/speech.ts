// POST /v1/audio/speech: text in, audio bytes out (never a JSON success body), charged per
// input character.
import { z } from 'zod';
import { speechPriceUnits } from '../../billing/media-pricing.js';
import type { SpeechRequest, SpeechResult } from '../../model/media.js';
import { countTextTokens } from '../../model/token-estimate.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { speechEvents } from './audio-events.js';

const speechBody = z.object({
  model: z.string().min(1).optional(),
  input: z.string().min(1).max(4096),
  voice: z.union([z.string().min(1), z.object({ id: z.string().min(1) })]),
  response_format: z.enum(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']).default('mp3'),
  speed: z.number().min(0.25).max(4).optional(),
  instructions: z.string().max(4096).optional(),
  // `sse`: the audio as base64 `speech.audio.delta` events (audio-events.ts).
  stream_format: z.enum(['audio', 'sse']).default('audio'),
});

export const createSpeech: Handler = async (ctx, services) => {
  const body = validate(speechBody, ctx.request.body, 'body');
  const model = resolveMediaModel(services, body.model, ['tts']);
  ctx.state.model = model.id;
  const voice = typeof body.voice === 'string' ? body.voice : body.voice.id;
  const voices = model.config.capabilities.voices;
  if (voices && typeof body.voice === 'string' && !voices.includes(voice)) {
    throw invalid(['body', 'voice'], `Input should be ${voices.map((v) => `'${v}'`).join(', ')} for ${model.id}`, voice, 'enum');
  }
  const formats = model.config.capabilities.formats;
  if (formats && !formats.includes(body.response_format)) {
    throw invalid(['body', 'response_format'], `Input should be ${formats.map((f) => `'${f}'`).join(', ')} for ${model.id}`, body.response_format, 'enum');
  }
  const price = speechPriceUnits(model.config.pricing, [...body.input].length);
  const { result, chargedUnits } = await chargedMediaCall<SpeechRequest, SpeechResult>(services, {
    apiKey: ctx.state.apiKey!,
    requestId: ctx.state.requestId,
    model,
    operation: 'speech',
    request: { input: body.input, voice, format: body.response_format, speed: body.speed, instructions: body.instructions },
    holdUnits: price,
    actualUnits: () => price,
    description: `speech ${model.id}`,
  });
  ctx.state.chargedUnits = chargedUnits;
  if (body.stream_format === 'sse') {
    ctx.type = 'text/event-stream';
    ctx.set('cache-control', 'no-cache');
    ctx.body = speechEvents(result.audio, { input_tokens: countTextTokens(body.input), output_tokens: 0 });
    return;
  }
  ctx.type = result.mediaType;
  ctx.body = Buffer.from(result.audio);
};
