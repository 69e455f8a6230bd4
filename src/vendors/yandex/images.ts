// YandexART: an asynchronous operation. The submit
//   POST {base}/foundationModels/v1/imageGenerationAsync
//   {modelUri: "art://<folder>/yandex-art/latest", generationOptions: {aspectRatio, mimeType}, messages: [{text, weight}]}
// answers an Operation {id, done: false}; the operation is polled on ANOTHER host
// (`operations_url`, https://operation.api.cloud.yandex.net by default):
//   GET {operations_url}/operations/{id}  →  {done: true, response: {image: <base64>}} or {done: true, error}
// One image per operation: a request for n > 1 gets one (and is charged for one).
import type { GeneratedImage, ImageGenerationRequest } from '../../model/media.js';
import { UpstreamError } from '../types.js';
import type { MediaAdapter, MediaHttpRequest, MediaHttpResponse, MediaOperation, MediaTarget } from '../media-types.js';
import { isObject, objectOf, stringOf } from '../shared/json.js';
import { base64Bytes, invalidResponse, jsonOf, sniffImageType } from '../shared/wire.js';
import { yandexErrorFromResponse } from './errors.js';
import { modelUri, yandexHeaders, yandexSettingsOf } from './settings.js';

export const imageGenerationPath = '/foundationModels/v1/imageGenerationAsync';

/** Between polls: an image takes YandexART about ten seconds. */
export const yandexPollDelayMs = 1_000;

/** HTTP statuses for the gRPC codes a failed operation carries. */
const statusOfGrpcCode: Readonly<Record<number, number>> = { 3: 400, 4: 504, 5: 404, 7: 403, 8: 429, 13: 500, 14: 503, 16: 401 };

/** The aspect ratio Yandex wants, as the smallest whole numbers: from "16:9", or from a size "1344x768". */
export function aspectRatioOf(request: Pick<ImageGenerationRequest, 'size' | 'aspectRatio'>): { widthRatio: string; heightRatio: string } | undefined {
  const match = /^(\d+)\s*[:x]\s*(\d+)$/.exec(request.aspectRatio ?? request.size ?? '');
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width === 0 || height === 0) return undefined;
  const divisor = greatestCommonDivisor(width, height);
  // int64 fields travel as strings on Yandex's JSON wire.
  return { widthRatio: String(width / divisor), heightRatio: String(height / divisor) };
}

function greatestCommonDivisor(left: number, right: number): number {
  return right === 0 ? left : greatestCommonDivisor(right, left % right);
}

function pollRequest(id: string, target: MediaTarget): MediaHttpRequest {
  const settings = yandexSettingsOf(target.settings);
  return { url: `${settings.operationsUrl}/operations/${encodeURIComponent(id)}`, method: 'GET', headers: yandexHeaders(target.apiKey, settings) };
}

function operationOf(response: MediaHttpResponse): Record<string, unknown> {
  const operation = jsonOf(response, 'image operation');
  if (!isObject(operation)) throw invalidResponse('the upstream\'s image operation is not a JSON object');
  return operation;
}

export const yandexArtOperation: MediaOperation<ImageGenerationRequest, GeneratedImage[]> = {
  build: (request, target) => {
    const settings = yandexSettingsOf(target.settings);
    const aspectRatio = aspectRatioOf(request);
    return {
      url: `${target.baseUrl.replace(/\/+$/, '')}${imageGenerationPath}`,
      method: 'POST',
      headers: yandexHeaders(target.apiKey, settings),
      body: {
        json: {
          modelUri: modelUri('art', target.model, settings.folderId),
          generationOptions: { ...(aspectRatio ? { aspectRatio } : {}), mimeType: request.outputFormat === 'jpeg' ? 'image/jpeg' : 'image/png' },
          messages: [{ text: request.prompt, weight: '1' }],
        },
      },
    };
  },
  follow: (response, _request, target) => {
    const operation = operationOf(response);
    if (operation.done === true) return undefined;
    const id = stringOf(operation.id);
    if (!id) throw invalidResponse('the upstream\'s image operation has no id to poll');
    return { request: pollRequest(id, target), delayMs: yandexPollDelayMs };
  },
  parse: (response, request) => {
    const operation = operationOf(response);
    const error = objectOf(operation.error);
    if (error) {
      const code = typeof error.code === 'number' ? error.code : 13;
      const status = statusOfGrpcCode[code] ?? 500;
      throw new UpstreamError(stringOf(error.message) ?? 'the image generation failed upstream', status, status === 429 || status >= 500, `grpc_${code}`);
    }
    const image = stringOf(objectOf(operation.response)?.image);
    if (!image) throw invalidResponse('the upstream\'s finished image operation holds no image');
    const data = base64Bytes(image);
    return [{ data, mediaType: sniffImageType(data) ?? (request.outputFormat === 'jpeg' ? 'image/jpeg' : 'image/png') }];
  },
};

export const yandexArtAdapter: MediaAdapter = {
  kind: 'yandex',
  generateImages: yandexArtOperation,
  parseError: yandexErrorFromResponse,
};
