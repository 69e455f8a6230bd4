// The OpenAI media adapter: images, speech, transcriptions and embeddings on the OpenAI wire.
// `openai-compatible` servers (LocalAI, vLLM, LiteLLM, Together…) take the same operations
// (openai-compatible/media.ts) and differ in one thing only: which models get
// `response_format: "b64_json"`.
import { errorFromResponse } from '../shared/upstream-errors.js';
import type { MediaAdapter } from '../media-types.js';
import { speechOperation, transcriptionOperation } from './audio.js';
import { embeddingsOperation } from './embeddings.js';
import { imageEditStreamOperation, imageGenerationStreamOperation } from './image-stream.js';
import { imageEditOperation, imageGenerationOperation, type OpenAiImageOptions } from './images.js';

export function openaiMediaOperations(kind: string, images: OpenAiImageOptions): MediaAdapter {
  return {
    kind,
    generateImages: imageGenerationOperation(images),
    editImages: imageEditOperation(images),
    // Streamed with previews: only models whose catalog entry says `partial_images: true` are asked so.
    streamImages: imageGenerationStreamOperation(images),
    streamImageEdits: imageEditStreamOperation(images),
    speech: speechOperation,
    transcribe: transcriptionOperation,
    embed: embeddingsOperation,
    parseError: errorFromResponse,
  };
}

/**
 * OpenAI: dall-e models answer URLs unless asked for base64; gpt-image models always answer
 * base64 and do not take the field.
 */
export const openaiMediaAdapter: MediaAdapter = openaiMediaOperations('openai', {
  askForBase64: (model) => model.startsWith('dall-e'),
});
