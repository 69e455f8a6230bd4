// Kling video generation as job operations (the gateway's POST /v1/videos):
//   submit    POST `${baseUrl}/v1/videos/text2video`, or `/v1/videos/image2video` when the job
//             has a reference image (sent as base64, without a data: prefix), with
//             external_task_id = the gateway's submit key
//   poll      GET  `${baseUrl}/v1/videos/{text2video|image2video}/{task_id}`
//   download  GET of task_result.videos[0].url (Kling's CDN: another origin, no key)
//   find      GET  `${baseUrl}/v1/videos/{text2video|image2video}/{external_task_id}`: Kling
//             looks a task up by either id, which settles a submit whose answer was lost
// The route model is Kling's model_name, with `:std` or `:pro` for the mode ("kling-v2-1:pro").
// A task is polled at the endpoint that made it, so the upstream id stored is
// "<endpoint>:<task_id>" ("image2video:8627…").
import type { UpstreamJobState, VideoJobRequest } from '../../model/jobs.js';
import { arrayOf, isObject, stringOf } from '../shared/json.js';
import type { JobOperations, NamedSubmit, SubmittedJob } from '../job-types.js';
import type { MediaHttpRequest, MediaOperation, MediaTarget } from '../media-types.js';
import { downloadWithKey } from '../shared/asset-download.js';
import { bearer, defined, invalidResponse, joinUrl } from '../shared/wire.js';
import { UpstreamError } from '../types.js';
import { klingData } from './errors.js';

type Endpoint = 'text2video' | 'image2video';

function endpointOf(request: VideoJobRequest): Endpoint {
  return request.reference ? 'image2video' : 'text2video';
}

/** "kling-v2-1:pro" → model_name kling-v2-1, mode pro; without a mode Kling uses its default (std). */
export function klingModel(routeModel: string): { modelName: string; mode?: string } {
  const [modelName = routeModel, mode] = routeModel.split(':', 2);
  return { modelName, mode: mode || undefined };
}

/** Kling's aspect ratios; a size of another shape gets the nearest (the catalog lists only these). */
export function klingAspectRatio(size: string): '16:9' | '9:16' | '1:1' {
  const [width = 1, height = 1] = size.split('x').map(Number);
  const ratio = width / height;
  if (ratio > 1.2) return '16:9';
  if (ratio < 1 / 1.2) return '9:16';
  return '1:1';
}

/** The create body: Kling's fields only (it has no seed; image2video takes its frame from the image). */
export function klingCreateBody(request: VideoJobRequest, routeModel: string, externalTaskId: string | undefined): Record<string, unknown> {
  const { modelName, mode } = klingModel(routeModel);
  const common = { model_name: modelName, prompt: request.prompt, duration: String(request.seconds), mode, external_task_id: externalTaskId };
  if (request.reference) return defined({ ...common, image: Buffer.from(request.reference.data).toString('base64') });
  return defined({ ...common, aspect_ratio: klingAspectRatio(request.size) });
}

function headers(target: MediaTarget): Record<string, string> {
  return { ...bearer(target.apiKey), 'content-type': 'application/json' };
}

function createRequest(request: VideoJobRequest, target: MediaTarget, externalTaskId: string | undefined): MediaHttpRequest {
  return { url: joinUrl(target.baseUrl, `/v1/videos/${endpointOf(request)}`), method: 'POST', headers: headers(target), body: { json: klingCreateBody(request, target.model, externalTaskId) } };
}

function submittedJob(data: Record<string, unknown>, endpoint: Endpoint, what: string): SubmittedJob {
  const taskId = stringOf(data.task_id);
  if (!taskId) throw invalidResponse(`Kling's ${what} answer has no task_id`);
  return { upstreamId: `${endpoint}:${taskId}` };
}

function submitOperation(externalTaskId: string | undefined): MediaOperation<VideoJobRequest, SubmittedJob> {
  return {
    build: (request, target) => createRequest(request, target, externalTaskId),
    parse: (response, request) => submittedJob(klingData(response, 'create task'), endpointOf(request), 'create task'),
  };
}

/** The stored upstream id split back: its endpoint (text2video for ids without one) and Kling's task id. */
export function klingTaskOf(upstreamId: string): { endpoint: Endpoint; taskId: string } {
  const colon = upstreamId.indexOf(':');
  const prefix = upstreamId.slice(0, colon);
  if (colon > 0 && (prefix === 'text2video' || prefix === 'image2video')) return { endpoint: prefix, taskId: upstreamId.slice(colon + 1) };
  return { endpoint: 'text2video', taskId: upstreamId };
}

/** A task query's data as the job's state. */
export function klingTaskState(data: Record<string, unknown>): UpstreamJobState {
  const raw = stringOf(data.task_status) ?? '(none)';
  switch (raw) {
    case 'submitted':
      return { state: 'queued', raw, progress: 0 };
    case 'processing':
      return { state: 'running', raw };
    case 'failed':
      return { state: 'failed', raw, code: 'kling_task_failed', message: stringOf(data.task_status_msg) || 'Kling reported the task as failed' };
    case 'succeed': {
      const result = isObject(data.task_result) ? data.task_result : {};
      const assets = arrayOf(result.videos)
        .filter(isObject)
        .filter((video) => stringOf(video.url))
        .map((video) => ({ url: stringOf(video.url)!, mediaType: 'video/mp4', durationSeconds: video.duration === undefined ? undefined : Number(video.duration) }));
      if (assets.length === 0) throw invalidResponse('Kling reported the task as succeeded with no video');
      return { state: 'completed', raw, assets };
    }
    default:
      return { state: 'unknown', raw };
  }
}

const poll: MediaOperation<string, UpstreamJobState> = {
  build: (upstreamId, target) => {
    const { endpoint, taskId } = klingTaskOf(upstreamId);
    return { url: joinUrl(target.baseUrl, `/v1/videos/${endpoint}/${encodeURIComponent(taskId)}`), method: 'GET', headers: bearer(target.apiKey) };
  },
  parse: (response) => klingTaskState(klingData(response, 'query task')),
};

/** Looks the job up by its external_task_id: undefined when Kling has no task by that name (code 1203, or HTTP 404). */
const find: NamedSubmit<VideoJobRequest>['find'] = {
  build: ({ key, request }, target) => ({ url: joinUrl(target.baseUrl, `/v1/videos/${endpointOf(request)}/${encodeURIComponent(key)}`), method: 'GET', headers: bearer(target.apiKey) }),
  parse: (response, { request }) => {
    try {
      return submittedJob(klingData(response, 'query task'), endpointOf(request), 'query task');
    } catch (error) {
      if (error instanceof UpstreamError && error.status === 404) return undefined;
      throw error;
    }
  },
};

export const klingVideoOperations: JobOperations<VideoJobRequest> = {
  submit: submitOperation(undefined),
  poll,
  download: downloadWithKey('video'),
  named: { submit: (key) => submitOperation(key), find },
};
