// ElevenLabs text to speech: POST `${baseUrl}/v1/text-to-speech/{voice_id}?output_format=…`
// with `xi-api-key` and `{text, model_id, voice_settings: {speed}}`; the answer is the audio.
// The gateway's formats map to ElevenLabs' `codec_samplerate[_bitrate]` names at what OpenAI
// sends for the same format (pcm and wav are 16-bit 24 kHz mono, as OpenAI's are). ElevenLabs
// has no aac or flac: those, speeds outside its 0.7–1.2 and `instructions` (it has no such
// field) are refused before anything is sent. The request's `voice` is an ElevenLabs voice id,
// or a name the provider's `voice_ids` setting maps to one (alloy → …).
// Streamed: the same request to `…/{voice_id}/stream`, whose chunked answer is the audio as it is
// spoken; each chunk is handed on as it is read (no container is re-cut: the bytes are the file's).
import type { SpeechRequest, SpeechResult } from '../../model/media.js';
import { speechOperation as openaiSpeech } from '../openai/audio.js';
import { isObject } from '../shared/json.js';
import { UpstreamError } from '../types.js';
import { invalidResponse, joinUrl } from '../shared/wire.js';
import type { MediaHttpRequest, MediaOperation, MediaStreamOperation, MediaTarget } from '../media-types.js';

/** The gateway's speech format → ElevenLabs' output_format; absent: ElevenLabs cannot make it. */
export const elevenLabsOutputFormats: Readonly<Partial<Record<SpeechRequest['format'], string>>> = {
  mp3: 'mp3_44100_128',
  opus: 'opus_48000_64',
  wav: 'wav_24000',
  pcm: 'pcm_24000',
};

export const elevenLabsSpeedRange = { min: 0.7, max: 1.2 } as const;

function refused(message: string, type: string): UpstreamError {
  return new UpstreamError(message, 400, false, type);
}

/** The voice id: the provider's mapping of the name when it has one, else the name itself. */
export function voiceIdOf(voice: string, target: MediaTarget): string {
  const mapping = target.settings?.voice_ids;
  if (isObject(mapping) && Object.hasOwn(mapping, voice) && typeof mapping[voice] === 'string') return mapping[voice];
  return voice;
}

/** The text-to-speech request, to `path` under the voice (`''` for the whole file, `/stream` for chunks). */
function speechRequest(request: SpeechRequest, target: MediaTarget, path: '' | '/stream'): MediaHttpRequest {
  const outputFormat = elevenLabsOutputFormats[request.format];
  if (!outputFormat) {
    throw refused(`ElevenLabs cannot produce ${request.format}: ask for ${Object.keys(elevenLabsOutputFormats).join(', ')}`, 'unsupported_format');
  }
  if (request.speed !== undefined && (request.speed < elevenLabsSpeedRange.min || request.speed > elevenLabsSpeedRange.max)) {
    throw refused(`ElevenLabs speaks at speeds from ${elevenLabsSpeedRange.min} to ${elevenLabsSpeedRange.max}, not ${request.speed}`, 'unsupported_speed');
  }
  if (request.instructions !== undefined) throw refused('ElevenLabs takes no instructions: the voice and the text say how it is spoken', 'unsupported_instructions');
  const voiceId = encodeURIComponent(voiceIdOf(request.voice, target));
  return {
    url: `${joinUrl(target.baseUrl, `/v1/text-to-speech/${voiceId}${path}`)}?output_format=${outputFormat}`,
    method: 'POST',
    headers: { ...(target.apiKey ? { 'xi-api-key': target.apiKey } : {}), accept: 'audio/*' },
    body: {
      json: {
        text: request.input,
        model_id: target.model,
        ...(request.speed !== undefined ? { voice_settings: { speed: request.speed } } : {}),
      },
    },
  };
}

export const elevenLabsSpeechOperation: MediaOperation<SpeechRequest, SpeechResult> = {
  build: (request, target) => speechRequest(request, target, ''),
  // The answer is audio as OpenAI's is: the same reading (a JSON 2xx is an error, the type from the format).
  parse: openaiSpeech.parse,
};

/** Each chunk of the audio as it is read; a stream that ended with none is no speech. */
export const elevenLabsSpeechStreamOperation: MediaStreamOperation<SpeechRequest, Uint8Array> = {
  framing: 'bytes',
  build: (request, target) => speechRequest(request, target, '/stream'),
  createParser: () => {
    let bytes = 0;
    return {
      push: (chunk) => {
        bytes += chunk.length;
        return chunk.length > 0 ? [chunk] : [];
      },
      end: () => {
        if (bytes === 0) throw invalidResponse('the upstream answered streamed speech with no audio');
      },
    };
  },
};
