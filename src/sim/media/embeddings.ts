// OpenAI embeddings (wire-formats.md §4): POST /v1/embeddings. Vectors are deterministic from
// sha256(model, input), unit-normalized, rounded to float32 so that `float` and `base64`
// (little-endian Float32 bytes, the SDKs' default) carry the same numbers. Dimension:
// `dimensions`, else 3072 for a model whose name contains "large" (the catalog's sim/embedding-large),
// else 1536.
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { invalid, SimError } from '../errors.js';
import { isRecord } from '../guards.js';
import { countTokens } from '../tokens.js';
import { applyFaults, optionalEnum, optionalInteger, optionalString, requiredString, seededRandom } from './common.js';

export const maxEmbeddingInputs = 2048;
export const maxEmbeddingInputTokens = 8192;

export function nativeDimensions(model: string): number {
  return model.includes('large') ? 3072 : 1536;
}

/** The simulator's vector for one input: deterministic, unit length, float32 values. */
export function embeddingVector(model: string, text: string, dimensions: number): Float32Array {
  const random = seededRandom('embedding', model, text);
  const values = new Float64Array(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index++) {
    const value = random() * 2 - 1;
    values[index] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm) || 1;
  const vector = new Float32Array(dimensions);
  for (let index = 0; index < dimensions; index++) vector[index] = values[index]! / norm;
  return vector;
}

interface EmbeddingInput {
  /** What the vector is derived from. */
  readonly key: string;
  readonly tokens: number;
  /** The text, for magic strings ('' for token arrays). */
  readonly text: string;
}

function isTokenArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((token) => typeof token === 'number');
}

function parseInputs(input: unknown): EmbeddingInput[] {
  const textInput = (text: string): EmbeddingInput => {
    if (text.length === 0) throw invalid("'$.input' is invalid: an input must not be an empty string", 'input');
    return { key: `text:${text}`, tokens: countTokens(text), text };
  };
  const tokenInput = (tokens: number[]): EmbeddingInput => {
    if (tokens.length === 0) throw invalid("'$.input' is invalid: a token array must not be empty", 'input');
    if (!tokens.every((token) => Number.isInteger(token) && token >= 0)) throw invalid("'$.input' is invalid: tokens must be non-negative integers", 'input');
    return { key: `tokens:${tokens.join(',')}`, tokens: tokens.length, text: '' };
  };
  if (input === undefined || input === null) throw new SimError(400, "Missing required parameter: 'input'.", 'input', undefined, 'missing_required_parameter');
  if (typeof input === 'string') return [textInput(input)];
  if (!Array.isArray(input) || input.length === 0) throw invalid("'$.input' is invalid: expected a non-empty string, array of strings, array of tokens or array of token arrays", 'input');
  if (input.length > maxEmbeddingInputs) throw invalid(`'$.input' is invalid: at most ${maxEmbeddingInputs} inputs, got ${input.length}`, 'input');
  if (isTokenArray(input)) return [tokenInput(input)];
  if (input.every((item) => typeof item === 'string')) return input.map(textInput);
  if (input.every(isTokenArray)) return input.map(tokenInput);
  throw invalid("'$.input' is invalid: mixed or unsupported input items", 'input');
}

/** POST /v1/embeddings */
export async function handleEmbeddings(context: SimContext): Promise<void> {
  if (!isRecord(context.body)) throw invalid('the request body must be a JSON object');
  const body = context.body;
  const model = requiredString(body.model, 'model');
  const inputs = parseInputs(body.input);
  const native = nativeDimensions(model);
  const dimensions = optionalInteger(body.dimensions, 'dimensions', 1, native) ?? native;
  const encoding = optionalEnum(body.encoding_format, 'encoding_format', ['float', 'base64']) ?? 'float';
  optionalString(body.user, 'user');
  for (const input of inputs) {
    if (input.tokens > maxEmbeddingInputTokens) {
      throw new SimError(400, `This model's maximum context length is ${maxEmbeddingInputTokens} tokens, however you requested ${input.tokens} tokens in one input.`, 'input', undefined, 'context_length_exceeded');
    }
  }
  if (!(await applyFaults(context, inputs.map((input) => input.text).join('\n')))) return;
  const data = inputs.map((input, index) => {
    const vector = embeddingVector(model, input.key, dimensions);
    const embedding = encoding === 'base64' ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector);
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce((sum, input) => sum + input.tokens, 0);
  context.usage.record('embeddings', model, { inputTokens: tokens, cachedInputTokens: 0, outputTokens: 0 });
  sendJson(context, 200, { object: 'list', model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}
