// ElevenLabs: text to speech, whole or streamed (speech.ts), and Scribe speech to text (transcriptions.ts).
import { z } from 'zod';
import type { MediaAdapter } from '../media-types.js';
import type { Vendor } from '../vendor.js';
import { parseElevenLabsError } from './errors.js';
import { elevenLabsSpeechOperation, elevenLabsSpeechStreamOperation } from './speech.js';
import { elevenLabsTranscriptionOperation } from './transcriptions.js';

export const elevenLabsMediaAdapter: MediaAdapter = {
  kind: 'elevenlabs',
  speech: elevenLabsSpeechOperation,
  streamSpeech: elevenLabsSpeechStreamOperation,
  transcribe: elevenLabsTranscriptionOperation,
  parseError: parseElevenLabsError,
};

export const elevenLabsVendor: Vendor = {
  media: [elevenLabsMediaAdapter],
  jobs: [],
  defaultBaseUrl: 'https://api.elevenlabs.io',
  providerSettings: {
    // Voice names clients may send (OpenAI's alloy, nova…) → ElevenLabs voice ids; any other voice is sent as an id.
    voice_ids: z.record(z.string().min(1), z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'expected an ElevenLabs voice id')).optional(),
  },
};
