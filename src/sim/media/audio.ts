// OpenAI audio (wire-formats.md §4). POST /v1/audio/speech: JSON in, real audio bytes out,
// silence lasting max(1, characters / 15) seconds / speed (mp3: MPEG-1 Layer III 128 kbit/s
// 44.1 kHz mono; wav: 16-bit 24 kHz mono; pcm: raw 16-bit 24 kHz; flac: 16-bit 24 kHz mono;
// opus: Ogg Opus, 20 ms packets; aac: ADTS AAC-LC 24 kHz mono). POST
// /v1/audio/transcriptions: multipart `file`, its duration measured from the audio itself
// (WAV header or MP3 frames), a deterministic transcript in the requested response_format.
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { invalid, SimError } from '../errors.js';
import { stripMagic } from '../faults.js';
import { isRecord } from '../guards.js';
import { applyFaults, optionalEnum, optionalNumber, optionalString, readForm, requiredString, sendBytes, sendText } from './common.js';
import { formFields } from './multipart.js';
import { readMp3Info, silentMp3 } from './mp3.js';
import { readWavInfo, silentPcm, silentWav } from './wav.js';
import { silentAdtsAac } from './adts.js';
import { silentFlac } from './flac.js';
import { oggOpusSeconds, silentOggOpus } from './ogg-opus.js';

export const maxSpeechInputChars = 4096;
/** OpenAI's upload limit for transcriptions (25 MB). */
export const maxTranscriptionFileBytes = 25 * 1024 * 1024;

/** Seconds of speech the simulator produces for an input: max(1, characters / 15) / speed. */
export function speechSeconds(input: string, speed = 1): number {
  return Math.max(1, input.length / 15) / speed;
}

const speechFormats = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
const contentTypes: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };

/** POST /v1/audio/speech */
export async function handleSpeech(context: SimContext): Promise<void> {
  if (!isRecord(context.body)) throw invalid('the request body must be a JSON object');
  const body = context.body;
  requiredString(body.model, 'model');
  const input = requiredString(body.input, 'input');
  if (input.length === 0) throw invalid('input: must not be empty', 'input');
  if (input.length > maxSpeechInputChars) throw invalid(`input: at most ${maxSpeechInputChars} characters, got ${input.length}`, 'input');
  const voice = body.voice;
  if (voice === undefined || voice === null) throw new SimError(400, "Missing required parameter: 'voice'.", 'voice', undefined, 'missing_required_parameter');
  if (!(typeof voice === 'string' && voice.length > 0) && !(isRecord(voice) && typeof voice.id === 'string')) throw invalid('voice: expected a voice name or {"id": "voice_…"}', 'voice');
  const format = optionalEnum(body.response_format, 'response_format', speechFormats) ?? 'mp3';
  const speed = optionalNumber(body.speed, 'speed', 0.25, 4) ?? 1;
  optionalString(body.instructions, 'instructions');
  const streamFormat = optionalEnum(body.stream_format, 'stream_format', ['audio', 'sse']);
  if (streamFormat === 'sse') throw invalid("stream_format 'sse' is not supported by the simulator", 'stream_format');
  if (!(await applyFaults(context, input))) return;
  const seconds = speechSeconds(input, speed);
  const encoders = { mp3: silentMp3, opus: silentOggOpus, aac: silentAdtsAac, flac: silentFlac, wav: silentWav, pcm: silentPcm };
  const audio = encoders[format](seconds);
  sendBytes(context, audio, contentTypes[format]!);
}

export interface MeasuredAudio {
  readonly format: 'mp3' | 'wav' | 'ogg';
  readonly seconds: number;
}

/** Duration of a WAV, MPEG or Ogg Opus audio file (a Telegram voice message), or undefined when the bytes are none of them. */
export function measureAudio(bytes: Uint8Array): MeasuredAudio | undefined {
  const wav = readWavInfo(bytes);
  if (wav) return { format: 'wav', seconds: wav.seconds };
  const mp3 = readMp3Info(bytes);
  if (mp3 && mp3.frames > 0) return { format: 'mp3', seconds: mp3.seconds };
  const ogg = oggOpusSeconds(bytes);
  if (ogg !== undefined) return { format: 'ogg', seconds: ogg };
  return undefined;
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const millis = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(millis / 3_600_000))}:${pad(Math.floor(millis / 60_000) % 60)}:${pad(Math.floor(millis / 1000) % 60)}${separator}${pad(millis % 1000, 3)}`;
}

/** POST /v1/audio/transcriptions */
export async function handleTranscriptions(context: SimContext): Promise<void> {
  const parts = readForm(context);
  const fields = formFields(parts);
  const file = parts.find((part) => part.name === 'file');
  if (!file) throw new SimError(400, "Missing required parameter: 'file'.", 'file', undefined, 'missing_required_parameter');
  if (file.data.length > maxTranscriptionFileBytes) throw new SimError(413, `Maximum content size limit (${maxTranscriptionFileBytes}) exceeded (${file.data.length} bytes read)`, 'file', undefined, 'file_too_large');
  requiredString(fields.get('model'), 'model');
  const language = optionalString(fields.get('language'), 'language');
  const prompt = optionalString(fields.get('prompt'), 'prompt');
  const responseFormat = optionalEnum(fields.get('response_format'), 'response_format', ['json', 'text', 'srt', 'verbose_json', 'vtt']) ?? 'json';
  optionalNumber(fields.get('temperature'), 'temperature', 0, 1);
  if (fields.get('stream') === 'true') throw invalid('stream: streamed transcriptions are not supported by the simulator', 'stream');
  const audio = measureAudio(file.data);
  if (!audio) throw invalid('could not decode audio: the simulator reads WAV, MP3 and Ogg Opus files', 'file');
  if (!(await applyFaults(context, prompt ?? ''))) return;

  const seconds = audio.seconds;
  const shownPrompt = prompt === undefined ? '' : stripMagic(prompt);
  const text = `Simulated transcript of ${seconds.toFixed(1)} seconds of audio.${shownPrompt ? ` Prompt: ${shownPrompt}` : ''}`;
  const usage = { type: 'duration', seconds: Math.ceil(seconds) };
  const duration = Math.round(seconds * 1000) / 1000;
  switch (responseFormat) {
    case 'json':
      return sendJson(context, 200, { text, usage });
    case 'text':
      return sendText(context, `${text}\n`, 'text/plain; charset=utf-8');
    case 'srt':
      return sendText(context, `1\n${timestamp(0, ',')} --> ${timestamp(seconds, ',')}\n${text}\n\n`, 'text/plain; charset=utf-8');
    case 'vtt':
      return sendText(context, `WEBVTT\n\n${timestamp(0, '.')} --> ${timestamp(seconds, '.')}\n${text}\n\n`, 'text/vtt; charset=utf-8');
    case 'verbose_json':
      return sendJson(context, 200, {
        task: 'transcribe',
        language: language ?? 'english',
        duration,
        text,
        segments: [{ id: 0, seek: 0, start: 0, end: duration, text, tokens: [], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 }],
        usage,
      });
  }
}
