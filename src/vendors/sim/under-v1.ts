// The built-in simulator serves the OpenAI media and video APIs under /v1, while its base URL
// is the bare origin (the Anthropic chat adapter appends /v1/messages itself, Suno-style music
// lives under /api/v1 and the upscaler under /v2beta). These are OpenAI's own operations
// aimed one segment lower, so the simulator exercises the very code real upstreams go through.
import type { VideoJobRequest } from '../../model/jobs.js';
import type { JobOperations } from '../job-types.js';
import type { MediaAdapter, MediaOperation, MediaStreamOperation, MediaTarget } from '../media-types.js';
import { openaiMediaAdapter } from '../openai/media.js';
import { openaiVideoOperations } from '../openai/videos.js';
import { joinVersioned } from '../shared/wire.js';

const retarget = (target: MediaTarget): MediaTarget => ({ ...target, baseUrl: joinVersioned(target.baseUrl, 'v1', '') });

/** The same operation against `${baseUrl}/v1` (unless the base already ends in /v1). */
export function underV1<Request, Result>(operation: MediaOperation<Request, Result>): MediaOperation<Request, Result> {
  return {
    build: (request, target) => operation.build(request, retarget(target)),
    parse: (response, request, target) => operation.parse(response, request, retarget(target)),
  };
}

/** A streamed operation against `${baseUrl}/v1`. */
export function streamUnderV1<Request, Event>(operation: MediaStreamOperation<Request, Event> | undefined): MediaStreamOperation<Request, Event> | undefined {
  if (!operation) return undefined;
  const build = (request: Request, target: MediaTarget) => operation.build(request, retarget(target));
  if (operation.framing === 'bytes') return { framing: 'bytes', build, createParser: (request, target) => operation.createParser(request, retarget(target)) };
  return { build, createParser: (request, target) => operation.createParser(request, retarget(target)) };
}

function optionalUnderV1<Request, Result>(operation: MediaOperation<Request, Result> | undefined): MediaOperation<Request, Result> | undefined {
  return operation && underV1(operation);
}

/** The OpenAI media operations of the simulator (images, speech, transcriptions, embeddings). */
export const simOpenaiMediaAdapter: MediaAdapter = {
  kind: 'sim',
  generateImages: optionalUnderV1(openaiMediaAdapter.generateImages),
  editImages: optionalUnderV1(openaiMediaAdapter.editImages),
  streamImages: streamUnderV1(openaiMediaAdapter.streamImages),
  streamImageEdits: streamUnderV1(openaiMediaAdapter.streamImageEdits),
  speech: optionalUnderV1(openaiMediaAdapter.speech),
  transcribe: optionalUnderV1(openaiMediaAdapter.transcribe),
  embed: optionalUnderV1(openaiMediaAdapter.embed),
  parseError: openaiMediaAdapter.parseError,
};

/** OpenAI's video job operations at the simulator's `/v1`. */
export const simOpenaiVideoOperations: JobOperations<VideoJobRequest> = {
  submit: underV1(openaiVideoOperations.submit),
  poll: underV1(openaiVideoOperations.poll),
  download: underV1(openaiVideoOperations.download),
};
