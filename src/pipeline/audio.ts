// Speech (charged per input character) and transcription (charged per minute of the audio,
// measured from the file itself and prorated to the second): resolve, check the model's
// declared options, then the media charge path (media.ts). The price endpoints call the same
// quotes (quoteSpeech, quoteTranscription).
import { speechPriceUnits } from '../billing/media-pricing.js';
import { priceInUnits } from '../billing/pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { SpeechBody, TranscriptionFields } from '../dialects/openai-media/audio.js';
import { audioSeconds } from '../media-files/inspect.js';
import type { InputFile, SpeechRequest, SpeechResult, TranscriptionRequest, TranscriptionResult } from '../model/media.js';
import { invalid } from '../validation/zod-details.js';
import { chargedMediaCall, type MediaCaller, type MediaUnits, resolveMediaModel, type MediaServices } from './media.js';

export interface SpeechQuote {
  readonly model: CatalogModel;
  readonly voice: string;
  readonly characters: number;
  readonly priceUnits: bigint;
}

/** The model, its declared voices and formats checked, and the price: the charge and the price endpoint both call it. */
export function quoteSpeech(services: MediaServices, body: SpeechBody): SpeechQuote {
  const model = resolveMediaModel(services, body.model, ['tts']);
  const voice = typeof body.voice === 'string' ? body.voice : body.voice.id;
  const voices = model.config.capabilities.voices;
  if (voices && typeof body.voice === 'string' && !voices.includes(voice)) {
    throw invalid(['body', 'voice'], `Input should be ${voices.map((v) => `'${v}'`).join(', ')} for ${model.id}`, voice, 'enum');
  }
  const formats = model.config.capabilities.formats;
  if (formats && !formats.includes(body.response_format)) {
    throw invalid(['body', 'response_format'], `Input should be ${formats.map((f) => `'${f}'`).join(', ')} for ${model.id}`, body.response_format, 'enum');
  }
  const characters = [...body.input].length;
  return { model, voice, characters, priceUnits: speechPriceUnits(model.config.pricing, characters) };
}

/** What a speech request's charge is, whole or streamed (speech-stream.ts): the quoted characters' price, held and charged. */
export function speechCharge(body: SpeechBody, { model, voice, characters, priceUnits }: SpeechQuote) {
  const request: SpeechRequest = { input: body.input, voice, format: body.response_format, speed: body.speed, instructions: body.instructions };
  return {
    model,
    request,
    holdUnits: priceUnits,
    actualUnits: () => priceUnits,
    description: `speech ${model.id}`,
    units: (): MediaUnits => ({ endpoint: 'speech', characters }),
  };
}

export async function createSpeech(services: MediaServices, caller: MediaCaller, body: SpeechBody): Promise<{ model: CatalogModel; speech: SpeechResult }> {
  // The model is noted before its options are checked, so a refused request still names it.
  caller.log.model = resolveMediaModel(services, body.model, ['tts']).id;
  const charge = speechCharge(body, quoteSpeech(services, body));
  const speech = await chargedMediaCall<SpeechRequest, SpeechResult>(services, { caller, operation: 'speech', ...charge });
  return { model: charge.model, speech };
}

export interface TranscriptionQuote {
  readonly model: CatalogModel;
  /** The audio's length, whole seconds rounded up: what is priced. */
  readonly seconds: number;
  readonly priceUnits: bigint;
}

/** The model and the file's measured length priced per minute, prorated to the second: the charge and the price endpoint both call it. */
export async function quoteTranscription(services: MediaServices, fields: TranscriptionFields, file: InputFile): Promise<TranscriptionQuote> {
  const model = resolveMediaModel(services, fields.model, ['stt']);
  const measured = await audioSeconds(file.data, file.mediaType);
  if (measured === undefined) throw invalid(['body', 'file'], 'the file is not audio the gateway can decode (mp3, wav, m4a, ogg, flac, webm)');
  const seconds = Math.ceil(measured);
  return { model, seconds, priceUnits: priceInUnits([{ quantity: seconds, price: model.config.pricing.per_minute ?? '0', per: 60 }]) };
}

export async function transcribe(services: MediaServices, caller: MediaCaller, fields: TranscriptionFields, file: InputFile): Promise<TranscriptionResult> {
  // The model is noted before the file is measured, so a request refused for its file still names it.
  caller.log.model = resolveMediaModel(services, fields.model, ['stt']).id;
  const { model, seconds, priceUnits: price } = await quoteTranscription(services, fields, file);
  return chargedMediaCall<TranscriptionRequest, TranscriptionResult>(services, {
    caller,
    model,
    operation: 'transcribe',
    request: { file, language: fields.language, prompt: fields.prompt, responseFormat: fields.response_format, temperature: fields.temperature },
    holdUnits: price,
    actualUnits: () => price,
    description: `transcription ${model.id} (${seconds} s)`,
    units: () => ({ endpoint: 'transcriptions', audioSeconds: seconds }),
  });
}
