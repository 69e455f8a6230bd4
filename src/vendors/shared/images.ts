// Images as the upstreams take them: OpenAI wants one URL (a data: URL for inline bytes),
// Anthropic wants base64 with a media type, or a remote URL.
import type { ImagePart } from '../../model/chat.js';

/** Media types by the first bytes of their base64 (the magic numbers, base64-encoded). */
const signatures: readonly (readonly [string, string])[] = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['R0lGOD', 'image/gif'],
  ['UklGR', 'image/webp'],
];

/** The declared media type, else one recognized from the data, else PNG (the common case). */
export function mediaTypeOf(image: ImagePart): string {
  if (image.mediaType) return image.mediaType;
  const data = image.data ?? '';
  return signatures.find(([prefix]) => data.startsWith(prefix))?.[1] ?? 'image/png';
}

/** `data:<type>;base64,<data>` → its parts; undefined for anything else. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,]+)*;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1], data: match[2] } : undefined;
}

/** The one URL OpenAI takes: inline data as a data: URL, else the remote URL. */
export function imageUrlOf(image: ImagePart): string | undefined {
  if (image.data !== undefined) return `data:${mediaTypeOf(image)};base64,${image.data}`;
  return image.url;
}
