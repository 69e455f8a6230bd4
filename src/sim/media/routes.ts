// The media endpoints of the simulator, for server.ts to route: each path with the protocol
// its errors are shaped in and whether the handler takes the raw body (multipart uploads, and
// System One, whose invalid JSON is a 422 rather than the OpenAI-shaped 400).
import type { SimContext } from '../context.js';
import type { SimError } from '../errors.js';
import { handleSpeech, handleTranscriptions } from './audio.js';
import { handleEmbeddings } from './embeddings.js';
import { stabilityErrorBody, systemOneErrorBody } from './errors.js';
import { handleImageEdits, handleImageGenerations } from './images.js';
import { handleSystemOne } from './systemone.js';
import { handleStabilityUpscaleFast } from './upscale.js';

export type MediaProtocol = 'openai' | 'stability' | 'systemone';

export interface MediaRoute {
  readonly protocol: MediaProtocol;
  readonly handler: (context: SimContext) => Promise<void> | void;
  /** The handler gets the body as a Buffer (context.body) instead of parsed JSON. */
  readonly rawBody?: boolean;
}

export const mediaPostRoutes: Record<string, MediaRoute> = {
  '/v1/images/generations': { protocol: 'openai', handler: handleImageGenerations },
  '/v1/images/edits': { protocol: 'openai', handler: handleImageEdits, rawBody: true },
  '/v1/audio/speech': { protocol: 'openai', handler: handleSpeech },
  '/v1/audio/transcriptions': { protocol: 'openai', handler: handleTranscriptions, rawBody: true },
  '/v1/embeddings': { protocol: 'openai', handler: handleEmbeddings },
  '/v1/systemone': { protocol: 'systemone', handler: handleSystemOne, rawBody: true },
  '/v2beta/stable-image/upscale/fast': { protocol: 'stability', handler: handleStabilityUpscaleFast, rawBody: true },
};

/** The error protocol of a path outside the OpenAI/Anthropic ones, or undefined. */
export function mediaProtocolOf(path: string): 'stability' | 'systemone' | undefined {
  if (path.startsWith('/v2beta/')) return 'stability';
  if (path === '/v1/systemone') return 'systemone';
  return undefined;
}

export function mediaErrorBody(protocol: 'stability' | 'systemone', error: SimError, requestId: string): unknown {
  return protocol === 'stability' ? stabilityErrorBody(error, requestId) : systemOneErrorBody(error);
}
