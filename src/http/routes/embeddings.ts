// POST /v1/embeddings: charged per input token as the upstream counted them; the vectors go
// back as floats or, as both official SDKs ask by default, base64 little-endian float32.
import { z } from 'zod';
import { inputTokensPriceUnits } from '../../billing/media-pricing.js';
import type { EmbeddingsRequest, EmbeddingsResult } from '../../model/media.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const embeddingsBody = z.object({
  model: z.string().min(1).optional(),
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048), z.array(z.number()), z.array(z.array(z.number()))]),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  dimensions: z.number().int().min(1).max(8192).optional(),
  user: z.string().optional(),
});

function base64Vector(vector: readonly number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

export const createEmbeddings: Handler = async (ctx, services) => {
  const body = validate(embeddingsBody, ctx.request.body, 'body');
  if (typeof body.input !== 'string' && body.input.some((item) => typeof item !== 'string')) {
    throw invalid(['body', 'input'], 'token arrays are not supported; send the text', undefined);
  }
  const input = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
  if (input.some((text) => text.length === 0)) throw invalid(['body', 'input'], 'inputs must not be empty');
  const model = resolveMediaModel(services, body.model, ['embeddings']);
  ctx.state.model = model.id;
  const declared = model.config.capabilities.dimensions;
  if (body.dimensions !== undefined && declared !== undefined && body.dimensions > declared) {
    throw invalid(['body', 'dimensions'], `Input should be less than or equal to ${declared}`, body.dimensions, 'less_than_equal');
  }
  // Hold a high estimate (3 characters per token); settle on the upstream's count.
  const estimate = input.reduce((sum, text) => sum + Math.ceil(text.length / 3) + 1, 0);
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
