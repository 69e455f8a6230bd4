// GigaChat embeddings: `POST {base}/api/v1/embeddings` {model: "Embeddings" | "EmbeddingsGigaR",
// input: [texts]} → {data: [{embedding: [floats], index, usage: {prompt_tokens}}]}: the tokens
// are counted per vector, and the request's input tokens are their sum. Token-array inputs and
// `dimensions` have no field on this wire (the vectors have the model's own size).
import type { EmbeddingsRequest, EmbeddingsResult } from '../../model/media.js';
import type { MediaOperation } from '../media-types.js';
import { arrayOf, countOf, isObject, objectOf } from '../shared/json.js';
import { bearer, invalidResponse, joinVersioned, jsonOf } from '../shared/wire.js';

export const gigachatEmbeddingsOperation: MediaOperation<EmbeddingsRequest, EmbeddingsResult> = {
  build: (request, target) => ({
    url: joinVersioned(target.baseUrl, 'api/v1', '/embeddings'),
    method: 'POST',
    headers: bearer(target.apiKey),
    body: { json: { model: target.model, input: request.input.map((item) => (typeof item === 'string' ? item : item.join(' '))) } },
  }),
  parse: (response, request) => {
    const body = jsonOf(response, 'embeddings');
    if (!isObject(body)) throw invalidResponse('the upstream\'s embeddings answer is not a JSON object');
    let inputTokens = countOf(objectOf(body.usage)?.prompt_tokens);
    const entries = arrayOf(body.data).map((item, position) => {
      const entry = objectOf(item);
      const vector = entry?.embedding;
      if (!Array.isArray(vector) || !vector.every((value) => typeof value === 'number' && Number.isFinite(value))) {
        throw invalidResponse(`embedding ${position} of the upstream's answer is not an array of numbers`);
      }
      inputTokens += countOf(objectOf(entry!.usage)?.prompt_tokens);
      return { index: typeof entry!.index === 'number' ? entry!.index : position, vector: vector as number[] };
    });
    entries.sort((left, right) => left.index - right.index);
    if (entries.length !== request.input.length || entries.some((entry, position) => entry.index !== position)) {
      throw invalidResponse(`the upstream answered ${entries.length} embeddings for ${request.input.length} inputs`);
    }
    return { vectors: entries.map((entry) => entry.vector), inputTokens };
  },
};
