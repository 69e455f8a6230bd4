// Small pieces every media adapter shares: URL joining, bearer auth, multipart file parts,
// reading a response body as JSON or text, and the error for an answer that is 2xx but not
// what the protocol promises.
import type { InputFile } from '../../model/media.js';
import { UpstreamError } from '../types.js';
import type { MediaHttpResponse } from '../media-types.js';

/** `base` + `path` with exactly one slash between them (bases are stored without a trailing one, but be lenient). */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * `base` + `/<version>` + `path`, unless the base already ends with that version segment
 * (an operator may configure `https://api.typesafe.ai` or `https://api.typesafe.ai/v1`).
 */
export function joinVersioned(baseUrl: string, version: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith(`/${version}`) ? `${base}${path}` : `${base}/${version}${path}`;
}

export function bearer(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/** The object without its undefined members (JSON would drop them anyway; fixtures compare objects). */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}

/** Appends a file part with its filename and content type. */
export function appendFile(form: FormData, name: string, file: InputFile): void {
  // Blob copies the bytes; a view over a larger (pooled) buffer is sliced to exactly the file.
  form.append(name, new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.mediaType }), file.filename);
}

/** Appends scalar fields as strings (multipart has no other type); undefined members are skipped. */
export function appendFields(form: FormData, fields: Record<string, string | number | undefined>): void {
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, String(value));
}

/** A 2xx answer that does not hold what the protocol promises. Another try would get the same. */
export function invalidResponse(message: string): UpstreamError {
  return new UpstreamError(message, 502, false, 'invalid_response');
}

export function headerOf(response: Pick<MediaHttpResponse, 'headers'>, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The content type without its parameters, lower-cased ("audio/mpeg"), or undefined. */
export function mediaTypeOf(response: Pick<MediaHttpResponse, 'headers'>): string | undefined {
  const value = headerOf(response, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  return value || undefined;
}

export function textOf(response: Pick<MediaHttpResponse, 'body'>): string {
  return new TextDecoder().decode(response.body);
}

/** The body as JSON; anything else is an invalid response naming what was expected. */
export function jsonOf(response: Pick<MediaHttpResponse, 'body'>, what: string): unknown {
  const text = textOf(response);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidResponse(`the upstream's ${what} answer is not JSON: ${text.slice(0, 200) || '(empty body)'}`);
  }
}

/** Bytes of a base64 string (standard or URL-safe alphabet). */
export function base64Bytes(value: string): Uint8Array {
  return Buffer.from(value, 'base64');
}

/** The image type its first bytes say (PNG, JPEG, WebP, GIF), or undefined. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (bytes.length >= 6 && ascii(0, 4) === 'GIF8') return 'image/gif';
  return undefined;
}

export const imageMediaTypes: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp' };
