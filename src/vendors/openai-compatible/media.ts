// The media operations of OpenAI-compatible servers: OpenAI's own (openai/media.ts), with the
// one rule where they differ, which models are asked for base64 images.
import type { MediaAdapter } from '../media-types.js';
import { openaiMediaOperations } from '../openai/media.js';

/**
 * Compatible servers mostly default to URLs (LocalAI, Together…), so base64 is asked for
 * always, except for gpt-image models (a proxy in front of OpenAI would pass the field on
 * and have it refused).
 */
export const openaiCompatibleMediaAdapter: MediaAdapter = openaiMediaOperations('openai-compatible', {
  askForBase64: (model) => !/(^|\/)gpt-image/.test(model),
});
