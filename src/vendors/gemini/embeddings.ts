// Gemini embeddings: `POST …/models/{model}:batchEmbedContents`, one request per input
// (`{model: "models/{model}", content: {parts: [{text}]}, outputDimensionality}`), answered
// `{embeddings: [{values: [...]}], usageMetadata?: {promptTokenCount}}` in input order.
// The input tokens are the answer's usageMetadata when it has one (Vertex does, the Gemini API
// may); else they are counted the way the gateway estimates text (4 bytes a token, rounded up
// per input), since the Gemini API bills embeddings per input token but does not report them.
// Token-array inputs have no Gemini form and are refused.
import type { EmbeddingsRequest, EmbeddingsResult } from '../../model/media.js';
import type { MediaOperation } from '../media-types.js';
import { UpstreamError } from '../types.js';
import { arrayOf, countOf, isObject, objectOf } from '../shared/json.js';
import { invalidResponse, jsonOf } from '../shared/wire.js';
import { endpointOf } from './settings.js';

export const geminiEmbeddingsOperation: MediaOperation<EmbeddingsRequest, EmbeddingsResult> = {
  build: (request, target) => {
    const endpoint = endpointOf(target);
    const texts = request.input.map((input) => {
      if (typeof input !== 'string') throw new UpstreamError('Gemini embeddings take text only, not token arrays', 400, false, 'INVALID_ARGUMENT');
      return input;
    });
    const model = `models/${target.model}`;
    return {
      url: `${endpoint.modelUrl}:batchEmbedContents`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...endpoint.headers },
      body: {
        json: {
          requests: texts.map((text) => ({
            model,
            content: { parts: [{ text }] },
            ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
          })),
        },
      },
    };
  },
  parse: (response, request) => {
    const body = jsonOf(response, 'embeddings');
    if (!isObject(body)) throw invalidResponse("the upstream's embeddings answer is not a JSON object");
    const vectors = arrayOf(body.embeddings).map((entry, index) => {
      const values = objectOf(entry)?.values;
      if (!Array.isArray(values) || !values.every((value) => typeof value === 'number' && Number.isFinite(value))) {
        throw invalidResponse(`embedding ${index} of the upstream's answer has no numeric values`);
      }
      return values as number[];
    });
    if (vectors.length !== request.input.length) throw invalidResponse(`the upstream answered ${vectors.length} embeddings for ${request.input.length} inputs`);
    const usage = objectOf(body.usageMetadata);
    const inputTokens = usage ? countOf(usage.promptTokenCount) : estimatedTokens(request.input);
    return { vectors, inputTokens };
  },
};

function estimatedTokens(inputs: EmbeddingsRequest['input']): number {
  return inputs.reduce<number>((sum, input) => sum + (typeof input === 'string' ? Math.ceil(Buffer.byteLength(input, 'utf8') / 4) : input.length), 0);
}
