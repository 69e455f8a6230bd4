// GigaChat's embeddings (POST /api/v1/embeddings): {model, input: [texts]} → 1024-dimension
// vectors (the Embeddings and EmbeddingsGigaR models' size) as float arrays, each with the
// tokens of its own text in `usage.prompt_tokens`.
import type { ServerResponse } from 'node:http';
import { embeddingVector } from '../../media/embeddings.js';
import { countTokens } from '../../tokens.js';
import { isRecord } from '../../guards.js';
import { sendJsonAnswer } from '../prefixed-wire.js';
import { GigachatSimError } from './errors.js';

export const gigachatEmbeddingDimensions = 1024;

export function handleGigachatEmbeddings(response: ServerResponse, body: unknown): void {
  if (!isRecord(body) || typeof body.model !== 'string') throw new GigachatSimError(400, 'model is required');
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((text) => typeof text === 'string')) throw new GigachatSimError(422, 'input: expected a string or an array of strings');
  const model = body.model;
  const data = (input as string[]).map((text, index) => ({
    object: 'embedding',
    embedding: Array.from(embeddingVector(model, text, gigachatEmbeddingDimensions)),
    index,
    usage: { prompt_tokens: countTokens(text) },
  }));
  sendJsonAnswer(response, 200, { object: 'list', data, model });
}
