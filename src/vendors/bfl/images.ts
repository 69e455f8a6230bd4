// FLUX (Black Forest Labs) images, an asynchronous API in three steps, all run by the media
// transport's `follow` (media-types.ts):
//   1. submit: POST `${baseUrl}/v1/{model}` with `x-key` → `{id, polling_url}`;
//   2. poll:   GET the polling_url (with `x-key`) until `status: "Ready"`; `Pending` polls on;
//   3. fetch:  GET `result.sample`, a signed URL on a storage host that expires about 10 minutes
//              after the task is ready: fetched at once, and never sent the key.
// Models that draw at an aspect ratio (Kontext, 1.1 [pro] Ultra) get `aspect_ratio`, the others
// `width`/`height`. One image per task: n > 1 is refused before anything is sent (the pipeline
// would otherwise hold for n and return one). Kontext edits send the references as base64
// `input_image`, `input_image_2`… .
import type { GeneratedImage, ImageGenerationRequest } from '../../model/media.js';
import { isObject, objectOf, stringOf } from '../shared/json.js';
import { defined, invalidResponse, joinUrl, jsonOf, mediaTypeOf, sniffImageType } from '../shared/wire.js';
import { UpstreamError } from '../types.js';
import type { MediaFollowUp, MediaHttpRequest, MediaHttpResponse, MediaOperation, MediaTarget } from '../media-types.js';

/** Between polls: BFL's own examples poll every half second. */
export const bflPollDelayMs = 500;

/** At most this many reference images (input_image … input_image_4). */
export const bflMaxReferences = 4;

/** Whether the model takes `aspect_ratio` rather than `width`/`height`. */
export function drawsAtAspectRatio(model: string): boolean {
  return model.includes('kontext') || model.includes('ultra');
}

/** "1536x1024" → "3:2" (the ratio in lowest terms); undefined for "auto" or anything else. */
export function ratioOfSize(size: string | undefined): string | undefined {
  const match = size === undefined ? null : /^(\d+)x(\d+)$/.exec(size);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width === 0 || height === 0) return undefined;
  const divisor = greatestCommonDivisor(width, height);
  return `${width / divisor}:${height / divisor}`;
}

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

function refused(message: string, type: string): UpstreamError {
  // 400: the request itself asks what FLUX cannot do; nothing was sent.
  return new UpstreamError(message, 400, false, type);
}

/** The submit's JSON body. */
export function submitBody(request: ImageGenerationRequest, target: MediaTarget): Record<string, unknown> {
  if (request.n > 1) throw refused('FLUX draws one image per request: ask for n = 1', 'unsupported_n');
  if (request.background === 'transparent') throw refused('FLUX cannot draw a transparent background', 'unsupported_background');
  if (request.images.length > bflMaxReferences) throw refused(`FLUX takes at most ${bflMaxReferences} reference images`, 'too_many_images');
  const size = request.size === undefined || request.size === 'auto' ? undefined : /^(\d+)x(\d+)$/.exec(request.size);
  const atRatio = drawsAtAspectRatio(target.model);
  const references = Object.fromEntries(
    request.images.map((image, index) => [index === 0 ? 'input_image' : `input_image_${index + 1}`, Buffer.from(image.data).toString('base64')]),
  );
  const safetyTolerance = target.settings?.safety_tolerance;
  return defined({
    prompt: request.prompt,
    ...references,
    aspect_ratio: atRatio ? (request.aspectRatio ?? ratioOfSize(request.size)) : undefined,
    width: !atRatio && size ? Number(size[1]) : undefined,
    height: !atRatio && size ? Number(size[2]) : undefined,
    // FLUX draws jpeg or png; webp is converted from png by the gateway (lossless on the way).
    output_format: request.outputFormat === 'jpeg' ? 'jpeg' : 'png',
    safety_tolerance: typeof safetyTolerance === 'number' ? safetyTolerance : undefined,
  });
}

/** BFL's hosts (api.bfl.ai, api.us1.bfl.ai…) share the key; any other host gets none. */
function keyGoesTo(url: string, baseUrl: string): boolean {
  const target = new URL(url);
  const base = new URL(baseUrl);
  if (target.origin === base.origin) return true;
  // A domain only for names: two addresses sharing their last two numbers are not one party.
  const isName = (host: string) => host.includes('.') && !/^[\d.]+$/.test(host) && !host.startsWith('[');
  const domain = (host: string) => host.split('.').slice(-2).join('.');
  return target.protocol === base.protocol && isName(base.hostname) && isName(target.hostname) && domain(target.hostname) === domain(base.hostname);
}

function pollRequest(url: string, target: MediaTarget): MediaHttpRequest {
  return { url, method: 'GET', headers: { ...(keyGoesTo(url, target.baseUrl) && target.apiKey ? { 'x-key': target.apiKey } : {}), accept: 'application/json' } };
}

function isImage(response: MediaHttpResponse): boolean {
  return sniffImageType(response.body) !== undefined || (mediaTypeOf(response)?.startsWith('image/') ?? false);
}

/** What a terminal status other than Ready becomes. */
function failedTask(status: string, body: Record<string, unknown>): UpstreamError {
  const details = body.details === undefined || body.details === null ? '' : `: ${JSON.stringify(body.details)}`;
  if (status === 'Request Moderated' || status === 'Content Moderated') {
    const what = status === 'Request Moderated' ? 'the prompt or reference image' : 'the generated image';
    // The request's own content: not retryable, and a 400 so the client hears the upstream refused it.
    return new UpstreamError(`FLUX content moderation refused ${what} (${status})${details}`, 400, false, status === 'Request Moderated' ? 'request_moderated' : 'content_moderated');
  }
  if (status === 'Task not found') return new UpstreamError(`FLUX lost the task (Task not found)${details}`, 502, true, 'task_not_found');
  return new UpstreamError(`FLUX failed to generate the image (${status})${details}`, 502, true, 'generation_failed');
}

/** Statuses after which the task changes no more. */
const failedStatuses = new Set(['Error', 'Failed', 'Request Moderated', 'Content Moderated', 'Task not found']);

export function followTask(response: MediaHttpResponse, _request: ImageGenerationRequest, target: MediaTarget): MediaFollowUp | undefined {
  if (isImage(response)) return undefined;
  const body = jsonOf(response, 'FLUX task');
  if (!isObject(body)) throw invalidResponse('the upstream\'s FLUX answer is not a JSON object');
  const status = stringOf(body.status);
  if (status === undefined) {
    // The submit's answer.
    const pollingUrl = stringOf(body.polling_url) ?? (stringOf(body.id) ? joinUrl(target.baseUrl, `/v1/get_result?id=${encodeURIComponent(stringOf(body.id)!)}`) : undefined);
    if (!pollingUrl) throw invalidResponse('the upstream\'s FLUX submit answer has neither polling_url nor id');
    return { request: pollRequest(pollingUrl, target), delayMs: bflPollDelayMs };
  }
  if (status === 'Ready') {
    const sample = stringOf(objectOf(body.result)?.sample);
    if (!sample) throw invalidResponse('the upstream\'s FLUX result is Ready without a sample URL');
    // A signed URL on a storage host: no key, at once (it expires).
    return { request: { url: sample, method: 'GET', headers: { accept: 'image/*' } }, delayMs: 0 };
  }
  if (failedStatuses.has(status)) throw failedTask(status, body);
  // Pending (or a running status this adapter does not know): poll the same URL again.
  const again = response.url ?? joinUrl(target.baseUrl, `/v1/get_result?id=${encodeURIComponent(stringOf(body.id) ?? '')}`);
  return { request: pollRequest(again, target), delayMs: bflPollDelayMs };
}

/** The fetched sample: one image. */
export function parseSample(response: MediaHttpResponse, request: ImageGenerationRequest): GeneratedImage[] {
  if (!isImage(response)) throw invalidResponse('the upstream\'s FLUX sample is not an image');
  if (response.body.length === 0) throw invalidResponse('the upstream\'s FLUX sample is empty');
  const declared = mediaTypeOf(response);
  const mediaType = sniffImageType(response.body) ?? (declared?.startsWith('image/') ? declared : request.outputFormat === 'jpeg' ? 'image/jpeg' : 'image/png');
  return [{ data: response.body, mediaType }];
}

export const bflImageOperation: MediaOperation<ImageGenerationRequest, GeneratedImage[]> = {
  build: (request, target) => ({
    url: joinUrl(target.baseUrl, `/v1/${encodeURIComponent(target.model)}`),
    method: 'POST',
    headers: { ...(target.apiKey ? { 'x-key': target.apiKey } : {}), accept: 'application/json' },
    body: { json: submitBody(request, target) },
  }),
  follow: followTask,
  parse: parseSample,
};
