// The asynchronous video upscaler (Stability-style; the protocol the simulator documents in
// src/sim/README.md): submit = multipart POST `${baseUrl}/v2beta/video/upscale` → {id}; poll =
// GET `${baseUrl}/v2beta/results/{id}` — 202 while running, 200 with `video_url` and the
// job's actual `cost` when done, or `status: failed`; download = GET of `video_url`.
import type { UpstreamJobState, VideoUpscaleJobRequest } from '../../model/jobs.js';
import { isObject, stringOf } from '../shared/json.js';
import type { JobOperations } from '../job-types.js';
import type { MediaOperation } from '../media-types.js';
import { appendFields, appendFile, bearer, invalidResponse, joinVersioned, jsonOf } from '../shared/wire.js';
import { downloadWithKey } from '../shared/asset-download.js';

const submit: JobOperations<VideoUpscaleJobRequest>['submit'] = {
  build: (request, target) => {
    const form = new FormData();
    appendFile(form, 'video', request.video);
    appendFields(form, { prompt: request.prompt, upscale_factor: request.upscaleFactor, creativity: request.creativity });
    return { url: joinVersioned(target.baseUrl, 'v2beta', '/video/upscale'), method: 'POST', headers: { ...bearer(target.apiKey), accept: 'application/json' }, body: { form } };
  },
  parse: (response) => {
    const body = jsonOf(response, 'video upscale');
    const id = isObject(body) ? stringOf(body.id) : undefined;
    if (!id) throw invalidResponse('the video upscale answer has no id');
    return { upstreamId: id };
  },
};

const poll: MediaOperation<string, UpstreamJobState> = {
  build: (id, target) => ({ url: joinVersioned(target.baseUrl, 'v2beta', `/results/${encodeURIComponent(id)}`), method: 'GET', headers: { ...bearer(target.apiKey), accept: 'application/json' } }),
  parse: (response): UpstreamJobState => {
    const body = jsonOf(response, 'upscale result');
    if (!isObject(body)) throw invalidResponse('the upscale result is not an object');
    const raw = stringOf(body.status) ?? (response.status === 202 ? 'in-progress' : '(none)');
    if (raw === 'in-progress' && response.status === 202) return { state: 'running', raw, progress: typeof body.progress === 'number' ? body.progress : undefined };
    if (raw === 'failed') {
      const error = isObject(body.error) ? body.error : {};
      return { state: 'failed', raw, code: stringOf(error.code) ?? 'upscale_failed', message: stringOf(error.message) ?? 'the upscaler reported a failure' };
    }
    if (raw === 'succeeded') {
      const url = stringOf(body.video_url);
      if (!url) throw invalidResponse('the upscale result has no video_url');
      const cost = isObject(body.cost) ? body.cost : undefined;
      const amount = cost ? stringOf(cost.amount) : undefined;
      const currency = cost ? stringOf(cost.currency) : undefined;
      return {
        state: 'completed',
        raw,
        assets: [{ url, mediaType: 'video/mp4', durationSeconds: typeof body.seconds === 'number' ? body.seconds : undefined }],
        actualCost: amount && /^\d+(\.\d+)?$/.test(amount) && (currency === 'USD' || currency === 'RUB') ? { currency, amount } : undefined,
      };
    }
    return { state: 'unknown', raw };
  },
};

export const upscalerVideoOperations: JobOperations<VideoUpscaleJobRequest> = { submit, poll, download: downloadWithKey('video') };
