// The bodies of POST /v1/images/generations, /v1/images/edits (the same fields as a multipart
// form), /v1/images/price and /v1/images/upscale, and the answers they get: OpenAI's image
// objects (b64_json only), plus the gateway's price object.
import { z } from 'zod';
import type { GeneratedImage } from '../../model/media.js';

/** A reference image may be this large (OpenAI's own limit). */
export const maxReferenceBytes = 25 * 1024 * 1024;

export const imageBody = z.object({
  prompt: z.string().min(1).max(32_000),
  model: z.string().min(1).optional(),
  n: z.number().int().min(1).max(4).default(1),
  size: z.string().min(1).optional(),
  aspect_ratio: z.string().min(1).optional(),
  resolution: z.string().min(1).optional(),
  quality: z.string().min(1).optional(),
  background: z.enum(['transparent', 'opaque', 'auto']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).default('png'),
  response_format: z.enum(['b64_json', 'url']).optional(),
  // Images as OpenAI's SSE events (image-events.ts). partial_images 0–3, as OpenAI takes it:
  // above 0 only on a model declaring capabilities.partial_images (pipeline/images.ts).
  stream: z.boolean().nullish(),
  partial_images: z.number().int().min(0).max(3).nullish(),
  user: z.string().optional(),
});
export type ImageBody = z.output<typeof imageBody>;

/** A multipart boolean: the SDKs send "true" / "false". */
const formBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

// The same fields as a multipart form: every scalar arrives as a string.
export const editBody = imageBody.extend({
  n: z.coerce.number().int().min(1).max(4).default(1),
  stream: formBoolean.optional(),
  partial_images: z.coerce.number().int().min(0).max(3).optional(),
});

export const upscaleFields = z.object({
  model: z.string().min(1).optional(),
  scale: z.coerce.number().int().refine((scale) => scale === 2 || scale === 4, 'scale must be 2 or 4').default(4),
});
export type UpscaleFields = z.output<typeof upscaleFields>;

export function encodeImages(images: readonly GeneratedImage[], echo: { model: string; output_format: string; size?: string; quality?: string }): unknown {
  return {
    created: Math.floor(Date.now() / 1000),
    data: images.map((image) => ({ b64_json: Buffer.from(image.data).toString('base64'), revised_prompt: image.revisedPrompt ?? null })),
    model: echo.model,
    output_format: echo.output_format,
    ...(echo.size ? { size: echo.size } : {}),
    ...(echo.quality ? { quality: echo.quality } : {}),
  };
}

export function encodeUpscaledImage(image: GeneratedImage, model: string, size: string): unknown {
  return { created: Math.floor(Date.now() / 1000), data: [{ b64_json: Buffer.from(image.data).toString('base64') }], model, size };
}
