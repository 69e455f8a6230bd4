// The built-in simulator's media side. It serves the OpenAI media API under /v1 (its base URL
// is the bare origin, as the Anthropic chat adapter appends /v1/messages itself), System One
// at /v1/systemone and Stability's upscaler at /v2beta/…: the real adapters of those vendors,
// so that the simulator exercises the very code real upstreams go through.
import { openaiMediaAdapter } from '../openai/media.js';
import type { MediaAdapter, MediaOperation, MediaTarget } from '../media-types.js';
import { joinVersioned } from '../shared/wire.js';

/** The same operation against `${baseUrl}/v1` (unless the base already ends in /v1). */
function underV1<Request, Result>(operation: MediaOperation<Request, Result> | undefined): MediaOperation<Request, Result> | undefined {
  if (!operation) return undefined;
  const retarget = (target: MediaTarget): MediaTarget => ({ ...target, baseUrl: joinVersioned(target.baseUrl, 'v1', '') });
  return {
    build: (request, target) => operation.build(request, retarget(target)),
    parse: (response, request, target) => operation.parse(response, request, retarget(target)),
  };
}

/** The OpenAI media operations of the simulator (images, speech, transcriptions, embeddings). */
export const simOpenaiMediaAdapter: MediaAdapter = {
  kind: 'sim',
  generateImages: underV1(openaiMediaAdapter.generateImages),
  editImages: underV1(openaiMediaAdapter.editImages),
  speech: underV1(openaiMediaAdapter.speech),
  transcribe: underV1(openaiMediaAdapter.transcribe),
  embed: underV1(openaiMediaAdapter.embed),
  parseError: openaiMediaAdapter.parseError,
};
