// Image generation on Google's two image families, chosen by the route's model name:
//   - Imagen (`imagen-…`): `POST …/models/{model}:predict` with `{instances: [{prompt}],
//     parameters: {sampleCount, aspectRatio, imageSize, outputOptions: {mimeType}}}`, answered
//     `{predictions: [{bytesBase64Encoded, mimeType}]}` (filtered images are left out);
//   - Gemini image models (`gemini-…-image…`): generateContent with `responseModalities:
//     ["IMAGE"]` and `imageConfig` ({aspectRatio, imageSize}); the images are the answer's
//     inlineData parts. Edits are the same call with the reference images as inlineData parts
//     before the prompt. One image per call: `n` above 1 still yields one.
// The aspect ratio is the request's, else its size ("1536x1024") reduced ("3:2"); the image
// size is the request's resolution ("2K"). Google has retired Imagen from the Gemini API (its SDK
// sends it to Vertex only): Imagen models belong on `auth: vertex` providers. Imagen edits are
// not done.
import type { GeneratedImage, ImageGenerationRequest } from '../../model/media.js';
import type { MediaHttpRequest, MediaHttpResponse, MediaOperation, MediaTarget } from '../media-types.js';
import { UpstreamError } from '../types.js';
import { arrayOf, isObject, objectOf, stringOf } from '../shared/json.js';
import { base64Bytes, invalidResponse, jsonOf, sniffImageType } from '../shared/wire.js';
import { endpointOf } from './settings.js';

function isImagen(model: string): boolean {
  return model.startsWith('imagen');
}

function gcd(left: number, right: number): number {
  return right === 0 ? left : gcd(right, left % right);
}

/** The request's aspect ratio, or its "WxH" size reduced to one. */
export function aspectRatioOf(request: ImageGenerationRequest): string | undefined {
  if (request.aspectRatio !== undefined) return request.aspectRatio;
  const match = request.size ? /^(\d+)x(\d+)$/.exec(request.size) : null;
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  const divisor = gcd(width, height) || 1;
  return `${width / divisor}:${height / divisor}`;
}

function post(target: MediaTarget, method: string, json: unknown): MediaHttpRequest {
  const endpoint = endpointOf(target);
  return { url: `${endpoint.modelUrl}:${method}`, method: 'POST', headers: { 'content-type': 'application/json', ...endpoint.headers }, body: { json } };
}

function imagenRequest(request: ImageGenerationRequest, target: MediaTarget): MediaHttpRequest {
  const aspectRatio = aspectRatioOf(request);
  return post(target, 'predict', {
    instances: [{ prompt: request.prompt }],
    parameters: {
      sampleCount: request.n,
      ...(aspectRatio !== undefined ? { aspectRatio } : {}),
      ...(request.resolution !== undefined ? { imageSize: request.resolution.toUpperCase() } : {}),
      ...(request.outputFormat === 'jpeg' ? { outputOptions: { mimeType: 'image/jpeg' } } : {}),
    },
  });
}

function geminiImageRequest(request: ImageGenerationRequest, target: MediaTarget): MediaHttpRequest {
  const aspectRatio = aspectRatioOf(request);
  const imageConfig = {
    ...(aspectRatio !== undefined ? { aspectRatio } : {}),
    ...(request.resolution !== undefined ? { imageSize: request.resolution.toUpperCase() } : {}),
  };
  const references = request.images.map((image) => ({ inlineData: { mimeType: image.mediaType, data: Buffer.from(image.data).toString('base64') } }));
  return post(target, 'generateContent', {
    contents: [{ role: 'user', parts: [...references, { text: request.prompt }] }],
    generationConfig: { responseModalities: ['IMAGE'], ...(Object.keys(imageConfig).length > 0 ? { imageConfig } : {}) },
  });
}

function image(base64: unknown, mimeType: unknown, position: number): GeneratedImage {
  if (typeof base64 !== 'string' || base64 === '') throw invalidResponse(`image ${position} of the upstream's answer has no data`);
  const data = base64Bytes(base64);
  return { data, mediaType: sniffImageType(data) ?? stringOf(mimeType) ?? 'image/png' };
}

function parseImages(response: MediaHttpResponse): GeneratedImage[] {
  const body = jsonOf(response, 'images');
  if (!isObject(body)) throw invalidResponse("the upstream's images answer is not a JSON object");
  if (body.predictions !== undefined) {
    const images = arrayOf(body.predictions).flatMap((item, position) => {
      const prediction = objectOf(item);
      // An image Imagen filtered comes back as {raiFilteredReason} without bytes.
      return prediction?.bytesBase64Encoded === undefined ? [] : [image(prediction.bytesBase64Encoded, prediction.mimeType, position)];
    });
    if (images.length === 0) throw new UpstreamError('the upstream returned no images (all filtered by its safety checks)', 400, false, 'content_filter');
    return images;
  }
  const candidate = objectOf(arrayOf(body.candidates)[0]);
  const images = arrayOf(objectOf(candidate?.content)?.parts).flatMap((part, position) => {
    const inline = objectOf(objectOf(part)?.inlineData);
    return inline ? [image(inline.data, inline.mimeType, position)] : [];
  });
  if (images.length === 0) {
    const reason = stringOf(candidate?.finishReason) ?? stringOf(objectOf(body.promptFeedback)?.blockReason) ?? 'no image part';
    throw new UpstreamError(`the upstream returned no image (${reason})`, 400, false, 'content_filter');
  }
  return images;
}

export const geminiImageGeneration: MediaOperation<ImageGenerationRequest, GeneratedImage[]> = {
  build: (request, target) => (isImagen(target.model) ? imagenRequest(request, target) : geminiImageRequest(request, target)),
  parse: parseImages,
};

export const geminiImageEdit: MediaOperation<ImageGenerationRequest, GeneratedImage[]> = {
  build: (request, target) => {
    if (isImagen(target.model)) throw new UpstreamError('Imagen models take no reference images here; use a Gemini image model for edits', 400, false, 'INVALID_ARGUMENT');
    return geminiImageRequest(request, target);
  },
  parse: parseImages,
};
