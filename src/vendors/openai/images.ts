// OpenAI images (wire-formats.md §4): generations as JSON to `${baseUrl}/images/generations`,
// edits as multipart to `${baseUrl}/images/edits` (one reference → part `image`, several →
// repeated `image[]`, as the SDKs send them). The answer's `data[].b64_json` are the images.
// A media adapter is pure and cannot fetch: an entry with only a `url` is an error, which is
// why dall-e models (URL by default) are asked for `response_format: "b64_json"`.
import type { GeneratedImage, ImageGenerationRequest } from '../../model/media.js';
import { arrayOf, isObject, stringOf } from '../shared/json.js';
import type { MediaHttpRequest, MediaHttpResponse, MediaOperation, MediaTarget } from '../media-types.js';
import { appendFields, appendFile, base64Bytes, bearer, defined, imageMediaTypes, invalidResponse, joinUrl, jsonOf, sniffImageType } from '../shared/wire.js';

export interface OpenAiImageOptions {
  /** Whether to send `response_format: "b64_json"` for this upstream model. */
  readonly askForBase64: (model: string) => boolean;
}

/**
 * The fields generations and edits share. `output_format` only when not png: png is every
 * server's default, and dall-e models do not know the field at all. `aspectRatio` and
 * `resolution` have no OpenAI field (sizes say both) and are not sent.
 */
export function imageFields(request: ImageGenerationRequest, target: MediaTarget, options: OpenAiImageOptions) {
  return defined({
    model: target.model,
    prompt: request.prompt,
    n: request.n,
    size: request.size,
    quality: request.quality,
    background: request.background,
    output_format: request.outputFormat === 'png' ? undefined : request.outputFormat,
    response_format: options.askForBase64(target.model) ? 'b64_json' : undefined,
    user: request.user,
  });
}

/** POST /images/generations with `fields` (imageFields, plus the stream's own when streamed). */
export function buildGeneration(target: MediaTarget, fields: Record<string, unknown>): MediaHttpRequest {
  return { url: joinUrl(target.baseUrl, '/images/generations'), method: 'POST', headers: bearer(target.apiKey), body: { json: fields } };
}

/** POST /images/edits as multipart: the references, then `fields`. */
export function buildEdit(request: ImageGenerationRequest, target: MediaTarget, fields: Record<string, string | number | undefined>): MediaHttpRequest {
  if (request.images.length === 0) throw new Error('an image edit needs at least one reference image');
  const form = new FormData();
  const partName = request.images.length === 1 ? 'image' : 'image[]';
  for (const image of request.images) appendFile(form, partName, image);
  appendFields(form, fields);
  return { url: joinUrl(target.baseUrl, '/images/edits'), method: 'POST', headers: bearer(target.apiKey), body: { form } };
}

export function imageGenerationOperation(options: OpenAiImageOptions): MediaOperation<ImageGenerationRequest, GeneratedImage[]> {
  return {
    build: (request, target) => buildGeneration(target, imageFields(request, target, options)),
    parse: parseImages,
  };
}

export function imageEditOperation(options: OpenAiImageOptions): MediaOperation<ImageGenerationRequest, GeneratedImage[]> {
  return {
    build: (request, target) => buildEdit(request, target, imageFields(request, target, options)),
    parse: parseImages,
  };
}

/** `{data: [{b64_json, revised_prompt?}], output_format?}` → images, in the upstream's order. */
export function parseImages(response: MediaHttpResponse, request: ImageGenerationRequest): GeneratedImage[] {
  const body = jsonOf(response, 'image');
  if (!isObject(body)) throw invalidResponse('the upstream\'s image answer is not a JSON object');
  const entries = arrayOf(body.data);
  if (entries.length === 0) throw invalidResponse('the upstream answered without any image');
  // What the bytes say wins; the answer's output_format, then the request's, for bytes nobody recognizes.
  const declared = imageMediaTypes[stringOf(body.output_format) ?? request.outputFormat] ?? 'image/png';
  return entries.map((entry, index) => {
    const b64 = isObject(entry) ? stringOf(entry.b64_json) : undefined;
    if (!b64) {
      if (isObject(entry) && typeof entry.url === 'string') {
        throw invalidResponse('the upstream returned a URL instead of image data (b64_json); the gateway does not fetch upstream URLs');
      }
      throw invalidResponse(`image ${index} of the upstream's answer has no b64_json`);
    }
    const data = base64Bytes(b64);
    if (data.length === 0) throw invalidResponse(`image ${index} of the upstream's answer is empty`);
    const image: GeneratedImage = { data, mediaType: sniffImageType(data) ?? declared };
    if (isObject(entry) && 'revised_prompt' in entry && (entry.revised_prompt === null || typeof entry.revised_prompt === 'string')) {
      return { ...image, revisedPrompt: entry.revised_prompt };
    }
    return image;
  });
}
