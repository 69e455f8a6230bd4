// The bodies of POST /v1/audio/speech (JSON) and /v1/audio/transcriptions (a multipart form:
// every scalar arrives as a string), as OpenAI's API takes them.
import { z } from 'zod';

export const speechBody = z.object({
  model: z.string().min(1).optional(),
  input: z.string().min(1).max(4096),
  voice: z.union([z.string().min(1), z.object({ id: z.string().min(1) })]),
  response_format: z.enum(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']).default('mp3'),
  speed: z.number().min(0.25).max(4).optional(),
  instructions: z.string().max(4096).optional(),
  // `sse`: the audio as base64 `speech.audio.delta` events (audio-events.ts).
  stream_format: z.enum(['audio', 'sse']).default('audio'),
});
export type SpeechBody = z.output<typeof speechBody>;

/** The largest audio file accepted for a transcription (OpenAI's own limit). */
export const maxTranscriptionBytes = 25 * 1024 * 1024;

export const transcriptionFields = z.object({
  model: z.string().min(1).optional(),
  language: z.string().min(2).max(16).optional(),
  prompt: z.string().max(4096).optional(),
  response_format: z.enum(['json', 'text', 'srt', 'verbose_json', 'vtt']).default('json'),
  temperature: z.coerce.number().min(0).max(1).optional(),
  // Multipart sends it as a string. `true`: transcript.text.delta/done events (audio-events.ts).
  stream: z.enum(['true', 'false']).default('false'),
});
export type TranscriptionFields = z.output<typeof transcriptionFields>;
