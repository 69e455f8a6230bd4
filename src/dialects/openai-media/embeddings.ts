// The body of POST /v1/embeddings and its answer: vectors as floats or, as both official SDKs
// ask by default, base64 little-endian float32.
import { z } from 'zod';
import type { EmbeddingsResult } from '../../model/media.js';

const token = z.number().int().min(0);

export const embeddingsBody = z.object({
  // Required, as OpenAI's API and both official SDKs have it: no default model is charged.
  model: z.string().min(1),
  // A text, texts, one token array or token arrays, as OpenAI takes them (several popular
  // clients send token arrays by default).
  input: z.union([
    z.string(),
    z.array(z.string()).min(1).max(2048),
    z.array(token).min(1),
    z.array(z.array(token).min(1)).min(1).max(2048),
  ]),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  dimensions: z.number().int().min(1).max(8192).optional(),
  user: z.string().optional(),
});
export type EmbeddingsBody = z.output<typeof embeddingsBody>;

/** One entry per vector: `[1, 2, 3]` is one token array, `[[1, 2], [3]]` two. */
export function embeddingInputs(input: EmbeddingsBody['input']): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (input.every((item) => typeof item === 'number')) return [input as number[]];
  return input as (string | number[])[];
}

function base64Vector(vector: readonly number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

export function encodeEmbeddings(result: EmbeddingsResult, model: string, encoding: EmbeddingsBody['encoding_format']): unknown {
  return {
    object: 'list',
    model,
    data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encoding === 'base64' ? base64Vector(vector) : vector })),
    usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens },
  };
}
