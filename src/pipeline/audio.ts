// Speech (charged per input character) and transcription (charged per minute of the audio,
// measured from the file itself and prorated to the second): resolve, check the model's
// declared options, then the media charge path (media.ts).
import { speechPriceUnits } from '../billing/media-pricing.js';
import { priceInUnits } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { SpeechBody, TranscriptionFields } from '../dialects/openai-media/audio.js';
import { audioSeconds } from '../media-files/inspect.js';
import type { InputFile, SpeechRequest, SpeechResult, TranscriptionRequest, TranscriptionResult } from '../model/media.js';
import type { ServerServices } from '../services.js';
import { invalid } from '../validation/zod-details.js';
import { chargedMediaCall, type MediaCaller, resolveMediaModel } from './media.js';

export async function createSpeech(services: ServerServices, caller: MediaCaller, body: SpeechBody): Promise<{ model: CatalogModel; speech: SpeechResult }> {
  const model = resolveMediaModel(services, body.model, ['tts']);
  caller.log.model = model.id;
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
  const speech = await chargedMediaCall<SpeechRequest, SpeechResult>(services, {
    caller,
    model,
    operation: 'speech',
    request: { input: body.input, voice, format: body.response_format, speed: body.speed, instructions: body.instructions },
    holdUnits: price,
    actualUnits: () => price,
    description: `speech ${model.id}`,
    units: () => ({ endpoint: 'speech', characters: [...body.input].length }),
  });
  return { model, speech };
}

export async function transcribe(services: ServerServices, caller: MediaCaller, fields: TranscriptionFields, file: InputFile): Promise<TranscriptionResult> {
  const model = resolveMediaModel(services, fields.model, ['stt']);
  caller.log.model = model.id;
  const seconds = await audioSeconds(file.data, file.mediaType);
  if (seconds === undefined) throw invalid(['body', 'file'], 'the file is not audio the gateway can decode (mp3, wav, m4a, ogg, flac, webm)');
  const price = priceInUnits([{ quantity: Math.ceil(seconds), price: model.config.pricing.per_minute ?? '0', per: 60 }]);
  return chargedMediaCall<TranscriptionRequest, TranscriptionResult>(services, {
    caller,
    model,
    operation: 'transcribe',
    request: { file, language: fields.language, prompt: fields.prompt, responseFormat: fields.response_format, temperature: fields.temperature },
    holdUnits: price,
    actualUnits: () => price,
    description: `transcription ${model.id} (${Math.ceil(seconds)} s)`,
    units: () => ({ endpoint: 'transcriptions', audioSeconds: Math.ceil(seconds) }),
  });
}
