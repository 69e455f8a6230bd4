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
import { handleGenerateMusic, handleMusicFile, handleMusicRecord } from './music.js';
import { handleCreateVideo, handleRetrieveVideo, handleVideoContent } from './videos.js';
import { handleUpscaleFile, handleUpscaleResult, handleVideoUpscale } from './video-upscale.js';

export type MediaProtocol = 'openai' | 'stability' | 'systemone' | 'suno';

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
  // Asynchronous jobs: OpenAI videos (JSON or multipart), Suno-style music, the video upscaler.
  '/v1/videos': { protocol: 'openai', handler: handleCreateVideo, rawBody: true },
  '/api/v1/generate': { protocol: 'suno', handler: handleGenerateMusic },
  '/v2beta/video/upscale': { protocol: 'stability', handler: handleVideoUpscale, rawBody: true },
};

/**
 * The GET side of the job protocols: polls and result downloads. Returns false when the path
 * is not one of them (or names a result that is not ready), so the server answers 404.
 */
export function handleMediaGet(context: SimContext, path: string, query: URLSearchParams): boolean {
  let match = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
  if (match) {
    if (match[2]) handleVideoContent(context, decodeURIComponent(match[1]!), query.get('variant'));
    else handleRetrieveVideo(context, decodeURIComponent(match[1]!));
    return true;
  }
  if (path === '/api/v1/generate/record-info') {
    handleMusicRecord(context, query.get('taskId'));
    return true;
  }
  match = /^\/v2beta\/results\/([^/]+)$/.exec(path);
  if (match) {
    handleUpscaleResult(context, decodeURIComponent(match[1]!));
    return true;
  }
  match = /^\/sim-files\/music\/([^/]+)\/(\d)\.mp3$/.exec(path);
  if (match) return handleMusicFile(context, match[1]!, Number(match[2]));
  match = /^\/sim-files\/video-upscale\/([^/]+)\.mp4$/.exec(path);
  if (match) return handleUpscaleFile(context, match[1]!);
  return false;
}

/** The error protocol of a path outside the OpenAI/Anthropic ones, or undefined. */
export function mediaProtocolOf(path: string): 'stability' | 'systemone' | 'suno' | undefined {
  if (path.startsWith('/v2beta/')) return 'stability';
  if (path.startsWith('/api/v1/')) return 'suno';
  if (path === '/v1/systemone') return 'systemone';
  return undefined;
}

export function mediaErrorBody(protocol: 'stability' | 'systemone' | 'suno', error: SimError, requestId: string): unknown {
  if (protocol === 'suno') return { code: error.status, msg: error.message, data: null };
  return protocol === 'stability' ? stabilityErrorBody(error, requestId) : systemOneErrorBody(error);
}
