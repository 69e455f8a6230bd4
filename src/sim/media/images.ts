// OpenAI images (wire-formats.md §4): POST /v1/images/generations (JSON) and
// POST /v1/images/edits (multipart, `image` or repeated `image[]`, optional `mask`). Every
// image is a real image of exactly the answered size, in the asked `output_format` (PNG, JPEG
// or WebP), a pattern derived from the prompt, the image's index and (edits) the reference
// images, so the n images differ. gpt-image style: always b64_json, usage in tokens. Magic strings of the prompt apply (common.ts).
import type { SimContext } from '../context.js';
import { requestIdHeaders, sendJson } from '../context.js';
import { faultError, invalid, SimError } from '../errors.js';
import { parseFaults } from '../faults.js';
import { writeStream } from '../sse-writer.js';
import { isRecord } from '../guards.js';
import { countTokens, imageTokens } from '../tokens.js';
import { applyFaults, optionalEnum, optionalInteger, optionalString, readForm, requiredString, sha256 } from './common.js';
import { formFields, type MultipartPart } from './multipart.js';
import { patternPng, readImageSize, readPngSize, type ImageSize } from './png.js';

/** Largest image the simulator draws (pixels), and largest side. */
export const maxImagePixels = 16 * 1024 * 1024;
const maxSide = 8192;
const maxReferenceImages = 16;

/** Output tokens of one 1024x1024 image per quality (gpt-image-1's table); other sizes scale with the area. */
const tokensPer1024Square: Record<string, number> = { low: 272, medium: 1056, high: 4160, standard: 1056, hd: 4160 };

export function imageOutputTokens(quality: string, width: number, height: number): number {
  return Math.ceil(((tokensPer1024Square[quality] ?? tokensPer1024Square.high!) * width * height) / (1024 * 1024));
}

interface ImageParams {
  readonly prompt: string;
  readonly model: string;
  readonly n: number;
  /** undefined = auto. */
  readonly size?: ImageSize;
  readonly quality: string;
  readonly background: 'opaque' | 'transparent';
  readonly outputFormat: 'png' | 'jpeg' | 'webp';
  /** 0–100, jpeg and webp only (OpenAI's default 100). */
  readonly outputCompression?: number;
  /** `stream: true`: the answer is OpenAI's image events. */
  readonly stream: boolean;
  /** 0–3 previews per image, streamed before it. */
  readonly partialImages: number;
}

function parseSize(value: unknown): ImageSize | undefined {
  const text = optionalString(value, 'size');
  if (text === undefined || text === 'auto') return undefined;
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(text);
  if (!match) throw invalid(`Invalid value for 'size': ${JSON.stringify(text)}. Expected "auto" or "WIDTHxHEIGHT", e.g. "1024x1024".`, 'size');
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width < 1 || height < 1 || width > maxSide || height > maxSide || width * height > maxImagePixels) {
    throw invalid(`Invalid value for 'size': ${text}. The simulator draws sides of 1 to ${maxSide} pixels and at most ${maxImagePixels} pixels.`, 'size');
  }
  return { width, height };
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true';
}

function parseImageParams(get: (name: string) => unknown): ImageParams {
  const prompt = requiredString(get('prompt'), 'prompt');
  if (prompt.trim().length === 0) throw invalid('prompt: must not be empty', 'prompt');
  if (prompt.length > 32_000) throw invalid(`prompt: at most 32000 characters, got ${prompt.length}`, 'prompt');
  const model = optionalString(get('model'), 'model') ?? 'gpt-image-1';
  const n = optionalInteger(get('n'), 'n', 1, 10) ?? 1;
  const size = parseSize(get('size'));
  const quality = optionalEnum(get('quality'), 'quality', ['auto', 'low', 'medium', 'high', 'standard', 'hd']) ?? 'auto';
  const background = optionalEnum(get('background'), 'background', ['auto', 'opaque', 'transparent']) ?? 'auto';
  const outputFormat = optionalEnum(get('output_format'), 'output_format', ['png', 'jpeg', 'webp']) ?? 'png';
  const responseFormat = optionalEnum(get('response_format'), 'response_format', ['b64_json', 'url']);
  if (responseFormat === 'url') throw invalid("response_format 'url' is not supported: the simulator's images (like gpt-image models) are returned as b64_json only", 'response_format');
  if (background === 'transparent' && outputFormat === 'jpeg') throw invalid('Transparent background requires output_format png or webp.', 'background');
  const stream = truthy(get('stream'));
  const outputCompression = optionalInteger(get('output_compression'), 'output_compression', 0, 100);
  const partialImages = optionalInteger(get('partial_images'), 'partial_images', 0, 3) ?? 0;
  optionalString(get('user'), 'user');
  return {
    prompt,
    model,
    n,
    size,
    quality: quality === 'auto' ? 'high' : quality,
    background: background === 'transparent' ? 'transparent' : 'opaque',
    outputFormat,
    outputCompression,
    stream,
    partialImages,
  };
}

/** The drawn PNG in the asked format: jpeg and webp at `output_compression`'s quality. */
async function inOutputFormat(png: Buffer, params: ImageParams): Promise<Buffer> {
  if (params.outputFormat === 'png') return png;
  // sharp (libvips) is loaded on the first jpeg or webp image only.
  const { default: sharp } = await import('sharp');
  return sharp(png).toFormat(params.outputFormat, { quality: params.outputCompression ?? 100 }).toBuffer();
}

async function answerImages(context: SimContext, params: ImageParams, size: ImageSize, references: readonly Buffer[]): Promise<void> {
  if (params.stream) {
    await streamImages(context, params, size, references);
    return;
  }
  if (!(await applyFaults(context, params.prompt))) return;
  const images = await drawImages(params, size, references);
  const usage = imagesUsage(params, size, references.length, params.n);
  sendJson(context, 200, {
    created: Math.floor(Date.now() / 1000),
    data: images.map((image) => ({ b64_json: image.toString('base64'), revised_prompt: null })),
    background: params.background,
    output_format: params.outputFormat,
    quality: params.quality,
    size: `${size.width}x${size.height}`,
    usage,
  });
}

/** The n images, each a pattern from the prompt, its index and the references. */
async function drawImages(params: ImageParams, size: ImageSize, references: readonly Buffer[]): Promise<Buffer[]> {
  const referenceHashes = references.map((bytes) => sha256(bytes).toString('hex'));
  const images = [];
  for (let index = 0; index < params.n; index++) {
    const seed = [params.prompt, String(index), ...referenceHashes].join('\0');
    images.push(await inOutputFormat(patternPng(size.width, size.height, seed, { transparent: params.background === 'transparent' }), params));
  }
  return images;
}

/** gpt-image's usage of `images` of the request's images: the prompt and the references' tokens in, the images' tokens out. */
function imagesUsage(params: ImageParams, size: ImageSize, referenceCount: number, images: number) {
  const textTokens = countTokens(params.prompt);
  const inputImageTokens = referenceCount * imageTokens;
  const outputTokens = images * imageOutputTokens(params.quality, size.width, size.height);
  return {
    input_tokens: textTokens + inputImageTokens,
    input_tokens_details: { text_tokens: textTokens, image_tokens: inputImageTokens },
    output_tokens: outputTokens,
    output_tokens_details: { text_tokens: 0, image_tokens: outputTokens },
    total_tokens: textTokens + inputImageTokens + outputTokens,
  };
}

/**
 * `stream: true`: OpenAI's image events, `event: <type>` + `data: <json>`. For each image, its
 * `partial_images` previews (`…partial_image`, index 0…: the same pattern drawn smaller, side ×
 * (index+1)/(partial_images+1), in the asked format), then `…completed` with the image and the
 * usage (the prompt's input tokens on the first image's, each image's own output tokens). The
 * stream magic strings apply: [[sim:delay=MS]] between events, [[sim:fail-mid]] an `error` event
 * and [[sim:drop]] a cut socket after half the events, besides status and ttfb before any.
 */
async function streamImages(context: SimContext, params: ImageParams, size: ImageSize, references: readonly Buffer[]): Promise<void> {
  const faults = parseFaults(params.prompt);
  if (faults.ttfbMs > 0) await context.watch.sleep(faults.ttfbMs);
  if (context.watch.closed) return;
  if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
  const kind = context.request.url?.includes('/images/edits') ? 'image_edit' : 'image_generation';
  const common = { background: params.background, created_at: Math.floor(Date.now() / 1000), output_format: params.outputFormat, quality: params.quality, size: `${size.width}x${size.height}` };
  const images = await drawImages(params, size, references);
  const referenceHashes = references.map((bytes) => sha256(bytes).toString('hex'));
  const frames: string[] = [];
  for (const [index, image] of images.entries()) {
    const seed = [params.prompt, String(index), ...referenceHashes].join('\0');
    for (let partial = 0; partial < params.partialImages; partial++) {
      const scale = (partial + 1) / (params.partialImages + 1);
      const preview = { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
      const bytes = await inOutputFormat(patternPng(preview.width, preview.height, seed, { transparent: params.background === 'transparent' }), params);
      frames.push(imageEvent(`${kind}.partial_image`, { ...common, b64_json: bytes.toString('base64'), partial_image_index: partial }));
    }
    const usage = imagesUsage(params, size, references.length, 1);
    frames.push(imageEvent(`${kind}.completed`, { ...common, b64_json: image.toString('base64'), usage: index === 0 ? usage : withoutInput(usage) }));
  }
  const errorFrame = imageEvent('error', { error: { message: 'Simulated failure in the middle of the stream', type: 'server_error', param: null, code: 'sim_fail_mid' } });
  const fault = faults.failMid ? 'fail-mid' : faults.drop ? 'drop' : null;
  await writeStream(context.response, context.watch, { frames, faultAt: Math.floor(frames.length / 2), errorFrame }, { delayMs: faults.delayMs, fault }, requestIdHeaders(context.requestId));
}

/** The usage of an image after the first: its output tokens only (the prompt was counted once). */
function withoutInput(usage: ReturnType<typeof imagesUsage>) {
  return { ...usage, input_tokens: 0, input_tokens_details: { text_tokens: 0, image_tokens: 0 }, total_tokens: usage.output_tokens };
}

function imageEvent(type: string, body: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
}

/** POST /v1/images/generations */
export async function handleImageGenerations(context: SimContext): Promise<void> {
  if (!isRecord(context.body)) throw invalid('the request body must be a JSON object');
  const body = context.body;
  const params = parseImageParams((name) => body[name]);
  await answerImages(context, params, params.size ?? { width: 1024, height: 1024 }, []);
}

function imagePart(part: MultipartPart, param: string): { bytes: Buffer; size: ImageSize } {
  const detected = readImageSize(part.data);
  if (!detected) throw invalid(`${param}: unsupported image${part.filename ? ` ${JSON.stringify(part.filename)}` : ''} (the simulator reads PNG and JPEG)`, param);
  return { bytes: part.data, size: detected };
}

/** POST /v1/images/edits */
export async function handleImageEdits(context: SimContext): Promise<void> {
  const parts = readForm(context);
  const fields = formFields(parts);
  const params = parseImageParams((name) => fields.get(name));
  const images = parts.filter((part) => part.name === 'image' || part.name === 'image[]').map((part) => imagePart(part, 'image'));
  if (images.length === 0) throw new SimError(400, "Missing required parameter: 'image'.", 'image', undefined, 'missing_required_parameter');
  if (images.length > maxReferenceImages) throw invalid(`image: at most ${maxReferenceImages} images, got ${images.length}`, 'image');
  const first = images[0]!.size;
  const maskPart = parts.find((part) => part.name === 'mask');
  if (maskPart) {
    const mask = readPngSize(maskPart.data);
    if (!mask) throw invalid('mask: unsupported image (the mask must be a PNG)', 'mask');
    if (mask.width !== first.width || mask.height !== first.height) {
      throw invalid(`mask: must have the size of the first image (${first.width}x${first.height}), got ${mask.width}x${mask.height}`, 'mask');
    }
  }
  if (!params.size && first.width * first.height > maxImagePixels) throw invalid(`image: ${first.width}x${first.height} is larger than the simulator draws; give a size`, 'size');
  await answerImages(context, params, params.size ?? first, images.map((image) => image.bytes));
}
