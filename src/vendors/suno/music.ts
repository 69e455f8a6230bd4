// Suno-style music (wire-formats.md §7, the sunoapi.org / kie.ai shape) as job operations:
// submit = POST `${baseUrl}/api/v1/generate`, poll = GET `…/api/v1/generate/record-info`,
// download = GET of each track's audioUrl. Answers are `{code, msg, data}` envelopes whose
// `code` is the real status even when HTTP says 200. A route model "V4_5:instrumental" asks
// for an instrumental of V4_5.
import type { MusicJobRequest, UpstreamJobState } from '../../model/jobs.js';
import { arrayOf, isObject, stringOf } from '../shared/json.js';
import { isRetryableStatus } from '../shared/upstream-errors.js';
import { UpstreamError } from '../types.js';
import type { JobOperations } from '../job-types.js';
import type { MediaHttpResponse, MediaOperation } from '../media-types.js';
import { bearer, defined, invalidResponse, joinUrl, jsonOf } from '../shared/wire.js';
import { downloadWithKey } from '../shared/asset-download.js';

/**
 * The envelope's `code` as an UpstreamError, or the data. The vendors' codes are HTTP-like
 * (400 bad parameters, 401 auth, 404 not found, 405/413 limits, 429/430 rate, 455 maintenance,
 * 500+ server): 429, 430, 455 and 5xx are worth another try.
 */
function envelopeData(response: Pick<MediaHttpResponse, 'body'>, what: string): unknown {
  const body = jsonOf(response, what);
  if (!isObject(body)) throw invalidResponse(`the upstream's ${what} answer is not an envelope`);
  const code = typeof body.code === 'number' ? body.code : 200;
  if (code !== 200) {
    const message = stringOf(body.msg) ?? `the upstream answered code ${code}`;
    throw new UpstreamError(message, code, code === 430 || code === 455 || isRetryableStatus(code), String(code));
  }
  return body.data;
}

/** Errors with an HTTP status other than 2xx: the envelope if there is one, else the text. */
export function parseSunoError(status: number, bodyText: string): UpstreamError {
  let message = bodyText.slice(0, 500) || `HTTP ${status}`;
  try {
    const body = JSON.parse(bodyText);
    if (isObject(body) && stringOf(body.msg)) message = stringOf(body.msg)!;
  } catch {
    // not JSON: the text is the message
  }
  return new UpstreamError(message, status, isRetryableStatus(status), String(status));
}

/** Suno's custom mode requires a style; the spec lets it be empty (then a neutral one). */
function vendorStyle(style: string | undefined): string {
  return style?.trim() || 'pop';
}

/**
 * Suno's custom mode requires a title of at most 100 characters; the spec allows an empty one
 * and up to 200. Empty: the first line of the lyrics that is no [section] tag, else "Untitled".
 */
function vendorTitle(title: string | undefined, lyrics: string | undefined): string {
  const firstLine = (lyrics ?? '').split('\n').map((line) => line.trim()).find((line) => line !== '' && !/^\[.*\]$/.test(line));
  return (title?.trim() || firstLine || 'Untitled').slice(0, 100);
}

/** Suno's simple mode takes a description of at most 500 characters; the spec allows 5000: the rest is cut at a word. */
const sunoDescriptionLimit = 500;
function vendorDescription(prompt: string | undefined): string | undefined {
  if (prompt === undefined || prompt.length <= sunoDescriptionLimit) return prompt;
  const cut = prompt.slice(0, sunoDescriptionLimit);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > sunoDescriptionLimit / 2 ? cut.slice(0, lastSpace) : cut).trimEnd();
}

const submit: JobOperations<MusicJobRequest>['submit'] = {
  build: (request, target) => {
    const [model, variant] = target.model.split(':', 2);
    const instrumental = request.instrumental || variant === 'instrumental';
    const custom = request.mode === 'custom';
    return {
      url: joinUrl(target.baseUrl, '/api/v1/generate'),
      method: 'POST',
      headers: { ...bearer(target.apiKey), 'content-type': 'application/json' },
      body: {
        json: defined({
          customMode: custom,
          instrumental,
          model,
          // Suno reads custom mode's lyrics from `prompt`.
          prompt: custom && !instrumental ? (request.lyrics ?? request.prompt) : custom ? request.prompt : vendorDescription(request.prompt),
          style: custom ? vendorStyle(request.style) : undefined,
          title: custom ? vendorTitle(request.title, request.lyrics ?? request.prompt) : undefined,
          negativeTags: request.negativeTags,
          // Some providers require a callback; the gateway polls instead, so it points nowhere useful.
          callBackUrl: 'https://localhost.invalid/gateway-polls',
        }),
      },
    };
  },
  parse: (response) => {
    const data = envelopeData(response, 'music generate');
    const taskId = isObject(data) ? stringOf(data.taskId) : undefined;
    if (!taskId) throw invalidResponse('the music generate answer has no taskId');
    return { upstreamId: taskId };
  },
};

const failedStatuses = new Set(['CREATE_TASK_FAILED', 'GENERATE_AUDIO_FAILED', 'CALLBACK_EXCEPTION', 'SENSITIVE_WORD_ERROR']);

const poll: MediaOperation<string, UpstreamJobState> = {
  build: (taskId, target) => ({ url: joinUrl(target.baseUrl, `/api/v1/generate/record-info?taskId=${encodeURIComponent(taskId)}`), method: 'GET', headers: bearer(target.apiKey) }),
  parse: (response): UpstreamJobState => {
    const data = envelopeData(response, 'music record-info');
    if (!isObject(data)) throw invalidResponse('the music record has no data');
    const raw = stringOf(data.status) ?? '(none)';
    if (raw === 'PENDING') return { state: 'queued', raw, progress: 0 };
    if (raw === 'TEXT_SUCCESS') return { state: 'running', raw, progress: 33 };
    if (raw === 'FIRST_SUCCESS') return { state: 'running', raw, progress: 66 };
    if (failedStatuses.has(raw)) return { state: 'failed', raw, code: raw, message: stringOf(data.errorMessage) ?? `the upstream reported ${raw}` };
    if (raw !== 'SUCCESS') return { state: 'unknown', raw };
    const tracks = arrayOf(isObject(data.response) ? data.response.sunoData : undefined).filter(isObject);
    const assets = tracks
      .filter((track) => stringOf(track.audioUrl))
      .map((track) => ({
        url: stringOf(track.audioUrl)!,
        mediaType: 'audio/mpeg',
        durationSeconds: typeof track.duration === 'number' ? track.duration : undefined,
        title: stringOf(track.title),
        tags: stringOf(track.tags),
      }));
    return { state: 'completed', raw, assets };
  },
};

export const sunoMusicOperations: JobOperations<MusicJobRequest> = { submit, poll, download: downloadWithKey('track') };
