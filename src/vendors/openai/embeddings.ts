// OpenAI embeddings (wire-formats.md §4): JSON to `${baseUrl}/embeddings`. We ask for base64
// (a quarter of the bytes of float text, and what the official SDKs ask for); servers that
// ignore encoding_format answer float arrays, which are read too. A base64 vector is the
// little-endian Float32 bytes, so its values are exactly the upstream's float32 values.
import type { EmbeddingsRequest, EmbeddingsResult } from '../../model/media.js';
import { arrayOf, countOf, isObject, objectOf } from '../shared/json.js';
import type { MediaOperation } from '../media-types.js';
import { base64Bytes, bearer, defined, invalidResponse, joinUrl, jsonOf } from '../shared/wire.js';

export const embeddingsOperation: MediaOperation<EmbeddingsRequest, EmbeddingsResult> = {
  build: (request, target) => ({
    url: joinUrl(target.baseUrl, '/embeddings'),
    method: 'POST',
    headers: bearer(target.apiKey),
    body: {
      json: defined({
        model: target.model,
        input: [...request.input],
        dimensions: request.dimensions,
        encoding_format: 'base64',
        user: request.user,
      }),
    },
  }),
  parse: (response, request) => {
    const body = jsonOf(response, 'embeddings');
    if (!isObject(body)) throw invalidResponse('the upstream\'s embeddings answer is not a JSON object');
    const entries = arrayOf(body.data).map((entry, position) => {
      if (!isObject(entry)) throw invalidResponse(`embedding ${position} of the upstream's answer is not an object`);
      const index = typeof entry.index === 'number' ? entry.index : position;
      return { index, vector: vectorOf(entry.embedding, index) };
    });
    entries.sort((left, right) => left.index - right.index);
    if (entries.length !== request.input.length || entries.some((entry, position) => entry.index !== position)) {
      throw invalidResponse(`the upstream answered ${entries.length} embeddings (indexes ${entries.map((entry) => entry.index).join(', ')}) for ${request.input.length} inputs`);
    }
    return { vectors: entries.map((entry) => entry.vector), inputTokens: countOf(objectOf(body.usage)?.prompt_tokens) };
  },
};

function vectorOf(embedding: unknown, index: number): number[] {
  if (typeof embedding === 'string') return decodeFloat32(embedding, index);
  if (Array.isArray(embedding) && embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) return embedding as number[];
  throw invalidResponse(`embedding ${index} of the upstream's answer is neither base64 nor an array of numbers`);
}

/** Little-endian Float32 bytes, whatever the machine's own byte order. */
export function decodeFloat32(base64: string, index = 0): number[] {
  const bytes = base64Bytes(base64);
  if (bytes.length % 4 !== 0) throw invalidResponse(`embedding ${index} of the upstream's answer is ${bytes.length} bytes, not a whole number of float32 values`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Array<number>(bytes.length / 4);
  for (let position = 0; position < vector.length; position++) vector[position] = view.getFloat32(position * 4, true);
  return vector;
}
