// POST /v1/embeddings: charged per input token as the upstream counted them; the vectors go
// back as floats or, as both official SDKs ask by default, base64 little-endian float32.
import { z } from 'zod';
import { inputTokensPriceUnits } from '../../billing/media-pricing.js';
import type { EmbeddingsRequest, EmbeddingsResult } from '../../model/media.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const token = z.number().int().min(0);

const embeddingsBody = z.object({
  model: z.string().min(1).optional(),
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

function base64Vector(vector: readonly number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** One entry per vector: `[1, 2, 3]` is one token array, `[[1, 2], [3]]` two. */
function inputsOf(input: z.infer<typeof embeddingsBody>['input']): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (input.every((item) => typeof item === 'number')) return [input as number[]];
  return input as (string | number[])[];
}

export const createEmbeddings: Handler = async (ctx, services) => {
  const body = validate(embeddingsBody, ctx.request.body, 'body');
  const input = inputsOf(body.input);
  if (input.some((text) => text.length === 0)) throw invalid(['body', 'input'], 'inputs must not be empty');
  const model = resolveMediaModel(services, body.model, ['embeddings']);
  ctx.state.model = model.id;
  const declared = model.config.capabilities.dimensions;
  if (body.dimensions !== undefined && declared !== undefined && body.dimensions > declared) {
    throw invalid(['body', 'dimensions'], `Input should be less than or equal to ${declared}`, body.dimensions, 'less_than_equal');
  }
  // Hold a high estimate (3 characters per token; a token array is its length); settle on the upstream's count.
  const estimate = input.reduce((sum, item) => sum + (typeof item === 'string' ? Math.ceil(item.length / 3) + 1 : item.length), 0);
  const { result, chargedUnits } = await chargedMediaCall<EmbeddingsRequest, EmbeddingsResult>(services, {
    apiKey: ctx.state.apiKey!,
    requestId: ctx.state.requestId,
    model,
    operation: 'embed',
    request: { input, dimensions: body.dimensions, user: body.user },
    holdUnits: inputTokensPriceUnits(model.config.pricing, estimate),
    actualUnits: (embeddings) => inputTokensPriceUnits(model.config.pricing, embeddings.inputTokens),
    description: `embeddings ${model.id}`,
  });
  ctx.state.chargedUnits = chargedUnits;
  ctx.body = {
    object: 'list',
    model: body.model ?? model.id,
    data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: body.encoding_format === 'base64' ? base64Vector(vector) : vector })),
    usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens },
  };
};
