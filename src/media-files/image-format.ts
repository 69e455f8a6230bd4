// An image in the format the client asked for (`output_format`): what an upstream answers in
// another format (an OpenAI-compatible server that ignores the field, a model that only
// draws PNG) is converted, so a client asking for jpeg or webp always gets those bytes.
import type { GeneratedImage } from '../model/media.js';
import { imageType } from './inspect.js';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export const imageFormatTypes: Readonly<Record<ImageFormat, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export async function inImageFormat(image: GeneratedImage, format: ImageFormat): Promise<GeneratedImage> {
  const wanted = imageFormatTypes[format];
  const actual = imageType(image.data) ?? image.mediaType;
  if (actual === wanted) return { ...image, mediaType: wanted };
  // sharp (libvips) is loaded only when an upstream answered another format.
  const { default: sharp } = await import('sharp');
  const data = await sharp(image.data).toFormat(format).toBuffer();
  return { ...image, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), mediaType: wanted };
}
