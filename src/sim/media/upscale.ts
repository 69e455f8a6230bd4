// Stability AI's synchronous fast upscaler: POST /v2beta/stable-image/upscale/fast, multipart
// `image` (PNG/JPEG) and `output_format`. The answer is a PNG 4x the input in each dimension,
// a pattern derived from the input's bytes; `Accept: application/json` gets
// `{image, finish_reason, seed}`, anything else the raw bytes with `finish-reason` and `seed`
// headers. Errors in Stability's shape (errors.ts). Magic strings ride in the image's filename.
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { invalid } from '../errors.js';
import { applyFaults, readForm, sendBytes, sha256 } from './common.js';
import { formFields } from './multipart.js';
import { patternPng, readImageSize } from './png.js';

export const upscaleFactor = 4;
/** 16 megapixels (16 * 2^20): Stability's input limit of 1,048,576 pixels, times 16. */
export const maxUpscaledPixels = 16 * 1024 * 1024;

/** POST /v2beta/stable-image/upscale/fast */
export async function handleStabilityUpscaleFast(context: SimContext): Promise<void> {
  const parts = readForm(context);
  const fields = formFields(parts);
  const imagePart = parts.find((part) => part.name === 'image');
  if (!imagePart || imagePart.data.length === 0) throw invalid('image: is required', 'image');
  const outputFormat = fields.get('output_format') ?? 'png';
  if (!['png', 'jpeg', 'webp'].includes(outputFormat)) throw invalid(`output_format: must be one of png, jpeg, webp; got ${JSON.stringify(outputFormat)}`, 'output_format');
  const input = readImageSize(imagePart.data);
  if (!input) throw invalid('image: unsupported image (the simulator reads PNG and JPEG)', 'image');
  const width = input.width * upscaleFactor;
  const height = input.height * upscaleFactor;
  if (width * height > maxUpscaledPixels) {
    throw invalid(`image: image too large: ${input.width}x${input.height} upscaled ${upscaleFactor}x is ${width}x${height}, more than ${maxUpscaledPixels} pixels`, 'image');
  }
  if (!(await applyFaults(context, imagePart.filename ?? ''))) return;
  const hash = sha256(imagePart.data);
  const seed = (hash.readUInt32BE(0) % 4_294_967_294) + 1;
  const png = patternPng(width, height, `upscale\0${hash.toString('hex')}`);
  const accept = String(context.request.headers.accept ?? '');
  if (accept.includes('application/json')) return sendJson(context, 200, { image: png.toString('base64'), finish_reason: 'SUCCESS', seed });
  sendBytes(context, png, 'image/png', { 'finish-reason': 'SUCCESS', seed: String(seed) });
}
