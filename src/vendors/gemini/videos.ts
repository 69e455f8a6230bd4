// Veo video jobs on the Gemini API: submit = POST `…/models/{model}:predictLongRunning`
// (`{instances: [{prompt, image?}], parameters: {aspectRatio, resolution, durationSeconds,
// seed}}`) → a long-running operation `{name: "models/{model}/operations/{id}"}`; poll = GET
// `…/v1beta/{name}` → `{done}`, then `response.generateVideoResponse.generatedSamples[].video.uri`
// or `error`; download = GET of that uri with the key (only to the upstream's own origin).
// The size "1280x720" says the aspect ratio (landscape 16:9, portrait 9:16) and the resolution
// (its short side: 720p). Veo on Vertex (fetchPredictOperation, inline bytes or Cloud Storage)
// is not done: a Vertex provider refuses video jobs. Google offers no idempotency key, so a
// submit whose answer was lost fails the job with its hold released.
import type { UpstreamJobState, VideoJobRequest } from '../../model/jobs.js';
import type { JobOperations } from '../job-types.js';
import type { MediaOperation, MediaTarget } from '../media-types.js';
import { UpstreamError } from '../types.js';
import { arrayOf, isObject, objectOf, stringOf } from '../shared/json.js';
import { invalidResponse, jsonOf } from '../shared/wire.js';
import { endpointOf, isVertex } from './settings.js';

/** `…/v1beta` of a target: the base its operation names are relative to. */
function apiBase(target: MediaTarget): string {
  const { modelUrl } = endpointOf(target);
  return modelUrl.slice(0, modelUrl.lastIndexOf('/models/'));
}

export function videoShape(size: string): { aspectRatio: string; resolution: string } {
  const match = /^(\d+)x(\d+)$/.exec(size);
  if (!match) return { aspectRatio: '16:9', resolution: '720p' };
  const width = Number(match[1]);
  const height = Number(match[2]);
  return { aspectRatio: width >= height ? '16:9' : '9:16', resolution: `${Math.min(width, height)}p` };
}

const submit: JobOperations<VideoJobRequest>['submit'] = {
  build: (request, target) => {
    if (isVertex(target.settings)) throw new UpstreamError('Veo video jobs are not supported on Vertex providers; use a Gemini API provider', 400, false, 'INVALID_ARGUMENT');
    const endpoint = endpointOf(target);
    const image = request.reference ? { image: { bytesBase64Encoded: Buffer.from(request.reference.data).toString('base64'), mimeType: request.reference.mediaType } } : {};
    return {
      url: `${endpoint.modelUrl}:predictLongRunning`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...endpoint.headers },
      body: {
        json: {
          instances: [{ prompt: request.prompt, ...image }],
          parameters: { ...videoShape(request.size), durationSeconds: request.seconds, ...(request.seed !== undefined ? { seed: request.seed } : {}) },
        },
      },
    };
  },
  parse: (response) => {
    const body = jsonOf(response, 'video submit');
    const name = isObject(body) ? stringOf(body.name) : undefined;
    if (!name) throw invalidResponse('the video submit answer names no operation');
    return { upstreamId: name };
  },
};

const poll: MediaOperation<string, UpstreamJobState> = {
  build: (name, target) => ({ url: `${apiBase(target)}/${name.split('/').map(encodeURIComponent).join('/')}`, method: 'GET', headers: endpointOf(target).headers }),
  parse: (response): UpstreamJobState => {
    const body = jsonOf(response, 'video operation');
    if (!isObject(body)) throw invalidResponse('the video operation is not an object');
    if (body.done !== true) return { state: 'running', raw: 'running' };
    const error = objectOf(body.error);
    if (error) return { state: 'failed', raw: 'error', code: stringOf(error.status) ?? String(error.code ?? 'video_failed'), message: stringOf(error.message) ?? 'the upstream reported the video as failed' };
    const result = objectOf(objectOf(body.response)?.generateVideoResponse);
    const assets = arrayOf(result?.generatedSamples).flatMap((sample) => {
      const uri = stringOf(objectOf(objectOf(sample)?.video)?.uri);
      return uri ? [{ url: uri, mediaType: 'video/mp4' }] : [];
    });
    if (assets.length > 0) return { state: 'completed', raw: 'done', assets };
    const filtered = arrayOf(result?.raiMediaFilteredReasons).filter((reason): reason is string => typeof reason === 'string');
    return { state: 'failed', raw: 'done', code: 'content_filter', message: filtered.join('; ') || 'the upstream finished without a video' };
  },
};

/** The video file: the key goes with it only to the upstream's own origin. */
const download: MediaOperation<{ url: string }, Uint8Array> = {
  build: (asset, target) => ({
    url: asset.url,
    method: 'GET',
    headers: new URL(asset.url).origin === new URL(target.baseUrl).origin ? endpointOf(target).headers : {},
  }),
  parse: (response) => {
    if (response.body.byteLength === 0) throw invalidResponse("the upstream's video download is empty");
    return response.body;
  },
};

export const geminiVideoOperations: JobOperations<VideoJobRequest> = { submit, poll, download };
