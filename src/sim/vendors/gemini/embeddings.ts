// batchEmbedContents and embedContent: deterministic unit vectors (the OpenAI embeddings
// endpoint's generator, media/embeddings.ts), 3072 dimensions for `gemini-embedding` models
// (768 otherwise) or outputDimensionality. The Gemini API reports no usage for embeddings; the
// Vertex paths add usageMetadata.promptTokenCount, as Vertex does.
import { invalid } from '../../errors.js';
import { isRecord, requireRecord, type JsonObject } from '../../guards.js';
import { embeddingVector } from '../../media/embeddings.js';
import { countTokens } from '../../tokens.js';

export interface EmbeddingAnswer {
  readonly body: Record<string, unknown>;
  readonly tokens: number;
  /** All the texts, for magic strings. */
  readonly text: string;
}

function nativeDimensions(model: string): number {
  return model.includes('gemini-embedding') ? 3072 : 768;
}

function embedOne(model: string, request: JsonObject, where: string): { values: number[]; tokens: number; text: string } {
  const content = requireRecord(request.content, `${where}.content`);
  if (!Array.isArray(content.parts) || content.parts.length === 0) throw invalid(`${where}.content.parts: must contain at least one part`, where);
  const text = content.parts.map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  if (text === '') throw invalid(`${where}.content: text content is empty`, where);
  const native = nativeDimensions(model);
  const dimensions = request.outputDimensionality ?? native;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > native) throw invalid(`${where}.outputDimensionality: expected 1..${native}`, where);
  return { values: Array.from(embeddingVector(model, `text:${text}`, dimensions)), tokens: countTokens(text), text };
}

export function batchEmbed(model: string, body: unknown, vertex: boolean): EmbeddingAnswer {
  const record = requireRecord(body, 'body');
  if (!Array.isArray(record.requests) || record.requests.length === 0 || record.requests.length > 250) throw invalid('requests: between 1 and 250 requests', 'requests');
  const results = record.requests.map((request: unknown, index) => {
    const where = `requests[${index}]`;
    const item = requireRecord(request, where);
    if (item.model !== undefined && item.model !== `models/${model}`) throw invalid(`${where}.model: Model "${String(item.model)}" does not match the batch's model "models/${model}".`, where);
    return embedOne(model, item, where);
  });
  const tokens = results.reduce((sum, result) => sum + result.tokens, 0);
  return {
    body: { embeddings: results.map((result) => ({ values: result.values })), ...(vertex ? { usageMetadata: { promptTokenCount: tokens, totalTokenCount: tokens } } : {}) },
    tokens,
    text: results.map((result) => result.text).join('\n'),
  };
}

export function embedSingle(model: string, body: unknown, vertex: boolean): EmbeddingAnswer {
  const result = embedOne(model, requireRecord(body, 'body'), 'body');
  return {
    body: { embedding: { values: result.values }, ...(vertex ? { usageMetadata: { promptTokenCount: result.tokens, totalTokenCount: result.tokens } } : {}) },
    tokens: result.tokens,
    text: result.text,
  };
}
