// Embeddings: held on a high estimate of the input tokens (3 characters per token; a token
// array is its length), settled on the upstream's count.
import { inputTokensPriceUnits } from '../billing/media-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import { embeddingInputs, type EmbeddingsBody } from '../dialects/openai-media/embeddings.js';
import type { EmbeddingsRequest, EmbeddingsResult } from '../model/media.js';
import { invalid } from '../validation/zod-details.js';
import { chargedMediaCall, type MediaCaller, resolveMediaModel, type MediaServices } from './media.js';

export async function createEmbeddings(services: MediaServices, caller: MediaCaller, body: EmbeddingsBody): Promise<{ model: CatalogModel; embeddings: EmbeddingsResult }> {
  const input = embeddingInputs(body.input);
  if (input.some((text) => text.length === 0)) throw invalid(['body', 'input'], 'inputs must not be empty');
  const model = resolveMediaModel(services, body.model, ['embeddings']);
  caller.log.model = model.id;
  const declared = model.config.capabilities.dimensions;
  if (body.dimensions !== undefined && declared !== undefined && body.dimensions > declared) {
    throw invalid(['body', 'dimensions'], `Input should be less than or equal to ${declared}`, body.dimensions, 'less_than_equal');
  }
  const estimate = input.reduce((sum, item) => sum + (typeof item === 'string' ? Math.ceil(item.length / 3) + 1 : item.length), 0);
  const embeddings = await chargedMediaCall<EmbeddingsRequest, EmbeddingsResult>(services, {
    caller,
    model,
    operation: 'embed',
    request: { input, dimensions: body.dimensions, user: body.user },
    holdUnits: inputTokensPriceUnits(model.config.pricing, estimate),
    actualUnits: (result) => inputTokensPriceUnits(model.config.pricing, result.inputTokens),
    description: `embeddings ${model.id}`,
    units: (result) => ({ endpoint: 'embeddings', inputTokens: result.inputTokens }),
  });
  return { model, embeddings };
}
