// Stability AI's synchronous fast upscaler: multipart POST to
// `${baseUrl}/v2beta/stable-image/upscale/fast` with the `image` and `output_format: png`;
// `accept: application/json` makes the answer `{image: <base64>, finish_reason, seed}`
// (without it the answer is the raw image with a `finish-reason` header, also read here).
//
// The fast upscaler always scales 4x: the request's `scale` is not sent. A 2x upscale is the
// gateway halving the input before it comes here, which is not this adapter's concern.
import type { GeneratedImage, ImageUpscaleRequest } from '../../model/media.js';
import { arrayOf, isObject, stringOf } from '../shared/json.js';
import { errorFromResponse, isRetryableStatus } from '../shared/upstream-errors.js';
import { UpstreamError } from '../types.js';
import type { MediaAdapter, MediaOperation } from '../media-types.js';
import { appendFields, appendFile, base64Bytes, bearer, headerOf, invalidResponse, joinVersioned, jsonOf, mediaTypeOf, sniffImageType } from '../shared/wire.js';

export const upscaleOperation: MediaOperation<ImageUpscaleRequest, GeneratedImage> = {
  build: (request, target) => {
    const form = new FormData();
    appendFile(form, 'image', request.image);
    appendFields(form, { output_format: 'png' });
    return {
      url: joinVersioned(target.baseUrl, 'v2beta', '/stable-image/upscale/fast'),
      method: 'POST',
      headers: { ...bearer(target.apiKey), accept: 'application/json' },
      body: { form },
    };
  },
  parse: (response) => {
    const type = mediaTypeOf(response);
    if (type?.startsWith('image/')) return imageOf(response.body, headerOf(response, 'finish-reason'));
    const body = jsonOf(response, 'upscale');
    if (!isObject(body)) throw invalidResponse('the upstream\'s upscale answer is not a JSON object');
    const image = stringOf(body.image);
    if (image === undefined && body.finish_reason === undefined) throw invalidResponse('the upstream\'s upscale answer has no image');
    return imageOf(base64Bytes(image ?? ''), stringOf(body.finish_reason));
  },
};

function imageOf(data: Uint8Array, finishReason: string | undefined): GeneratedImage {
  if (finishReason !== undefined && finishReason !== 'SUCCESS') {
    // CONTENT_FILTERED: the input image itself was refused. Status 400 so that the client
    // hears "the upstream refused the request", as for an OpenAI moderation block.
    throw new UpstreamError(`the upstream did not upscale the image: finish_reason ${finishReason}`, 400, false, finishReason.toLowerCase());
  }
  if (data.length === 0) throw invalidResponse('the upstream\'s upscale answer holds an empty image');
  return { data, mediaType: sniffImageType(data) ?? 'image/png' };
}

/** Stability's error bodies: `{id, name, errors: ["…"]}`; anything else through the common reader. */
export function parseStabilityError(status: number, bodyText: string): UpstreamError {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return errorFromResponse(status, bodyText);
  }
  if (!isObject(body) || (!Array.isArray(body.errors) && typeof body.name !== 'string')) return errorFromResponse(status, bodyText);
  const messages = arrayOf(body.errors).filter((error): error is string => typeof error === 'string');
  const name = stringOf(body.name);
  const message = messages.length > 0 ? messages.join('; ') : (name ?? `HTTP ${status}`);
  return new UpstreamError(message, status, isRetryableStatus(status), name);
}

export const upscalerAdapter: MediaAdapter = {
  kind: 'upscaler',
  upscaleImage: upscaleOperation,
  parseError: parseStabilityError,
};
