// OpenAI Videos (wire-formats.md §5) as job operations: submit = POST `${baseUrl}/videos`
// as multipart (what openai-node sends; the reference image as the `input_reference` part),
// poll = GET `${baseUrl}/videos/{id}`, download = GET `${baseUrl}/videos/{id}/content`.
import type { UpstreamJobState, VideoJobRequest } from '../../model/jobs.js';
import { isObject, stringOf } from '../shared/json.js';
import type { JobOperations } from '../job-types.js';
import type { MediaOperation } from '../media-types.js';
import { downloadWithKey } from '../shared/asset-download.js';
import { appendFields, appendFile, bearer, invalidResponse, joinUrl, jsonOf } from '../shared/wire.js';

const submit: JobOperations<VideoJobRequest>['submit'] = {
  build: (request, target) => {
    const form = new FormData();
    appendFields(form, { model: target.model, prompt: request.prompt, seconds: String(request.seconds), size: request.size, seed: request.seed });
    if (request.reference) appendFile(form, 'input_reference', request.reference);
    return { url: joinUrl(target.baseUrl, '/videos'), method: 'POST', headers: bearer(target.apiKey), body: { form } };
  },
  parse: (response) => {
    const body = jsonOf(response, 'video create');
    const id = isObject(body) ? stringOf(body.id) : undefined;
    if (!id) throw invalidResponse('the video create answer has no id');
    return { upstreamId: id };
  },
};

const poll: MediaOperation<string, UpstreamJobState> = {
  build: (id, target) => ({ url: joinUrl(target.baseUrl, `/videos/${encodeURIComponent(id)}`), method: 'GET', headers: bearer(target.apiKey) }),
  parse: (response, id, target): UpstreamJobState => {
    const body = jsonOf(response, 'video retrieve');
    if (!isObject(body)) throw invalidResponse('the video object is not an object');
    const raw = stringOf(body.status) ?? '(none)';
    const progress = typeof body.progress === 'number' ? body.progress : undefined;
    switch (raw) {
      case 'queued':
        return { state: 'queued', raw, progress };
      case 'in_progress':
        return { state: 'running', raw, progress };
      case 'completed':
        return { state: 'completed', raw, assets: [{ url: joinUrl(target.baseUrl, `/videos/${encodeURIComponent(id)}/content`), mediaType: 'video/mp4' }] };
      case 'failed': {
        const error = isObject(body.error) ? body.error : {};
        return { state: 'failed', raw, code: stringOf(error.code) ?? 'video_failed', message: stringOf(error.message) ?? 'the upstream reported the video as failed' };
      }
      default:
        return { state: 'unknown', raw };
    }
  },
};


export const openaiVideoOperations: JobOperations<VideoJobRequest> = { submit, poll, download: downloadWithKey('video') };
