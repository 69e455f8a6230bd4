// Images on the Gemini wire: Imagen's `:predict` (`{instances: [{prompt}], parameters:
// {sampleCount, aspectRatio, imageSize, outputOptions}}` → `{predictions: [{bytesBase64Encoded,
// mimeType}]}`) and Gemini image models' generateContent with `responseModalities: ["IMAGE"]`
// (one inlineData part; 1290 output tokens an image, as Google counts them). Pictures are the
// simulator's deterministic PNGs (media/png.ts) of the size the ratio and image size stand for:
// the area of a (1024 × K)² square at the ratio, sides multiples of 16.
import { invalid } from '../../errors.js';
import { isRecord, requireRecord, requireString } from '../../guards.js';
import { patternPng } from '../../media/png.js';

export const imageOutputTokens = 1290;
const ratios = new Set(['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9']);

export function imageSize(aspectRatio: unknown, size: unknown, where: string): { width: number; height: number } {
  const ratio = aspectRatio ?? '1:1';
  if (typeof ratio !== 'string' || !ratios.has(ratio)) throw invalid(`${where}.aspectRatio: unsupported aspect ratio ${JSON.stringify(ratio)}`, where);
  const k = size === undefined ? 1 : typeof size === 'string' && /^[124]K$/.test(size) ? Number(size[0]) : undefined;
  if (k === undefined) throw invalid(`${where}.imageSize: expected 1K, 2K or 4K`, where);
  const [rw, rh] = ratio.split(':').map(Number) as [number, number];
  const side = 1024 * k;
  return { width: Math.floor((side * Math.sqrt(rw / rh)) / 16) * 16, height: Math.floor((side * Math.sqrt(rh / rw)) / 16) * 16 };
}

/** :predict of an Imagen model. */
export function predictImages(model: string, body: unknown): { body: Record<string, unknown>; prompt: string } {
  const record = requireRecord(body, 'body');
  if (!Array.isArray(record.instances) || record.instances.length !== 1) throw invalid('instances: exactly one instance', 'instances');
  const prompt = requireString(requireRecord(record.instances[0], 'instances[0]').prompt, 'instances[0].prompt');
  const parameters = isRecord(record.parameters) ? record.parameters : {};
  const count = parameters.sampleCount ?? 4;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 4) throw invalid('parameters.sampleCount: between 1 and 4', 'parameters');
  const { width, height } = imageSize(parameters.aspectRatio, parameters.imageSize, 'parameters');
  const predictions = Array.from({ length: count }, (_, index) => ({ bytesBase64Encoded: patternPng(width, height, `${model}:${prompt}:${index}`).toString('base64'), mimeType: 'image/png' }));
  return { body: { predictions }, prompt };
}

/** A generateContent that asked for images: one PNG part, and its usage. */
export function contentImage(model: string, prompt: string, promptTokens: number, config: Record<string, unknown>): Record<string, unknown> {
  const imageConfig = isRecord(config.imageConfig) ? config.imageConfig : {};
  const { width, height } = imageSize(imageConfig.aspectRatio, imageConfig.imageSize, 'generationConfig.imageConfig');
  const data = patternPng(width, height, `${model}:${prompt}`).toString('base64');
  return {
    candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data } }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: imageOutputTokens, totalTokenCount: promptTokens + imageOutputTokens, candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: imageOutputTokens }] },
    modelVersion: model,
  };
}
