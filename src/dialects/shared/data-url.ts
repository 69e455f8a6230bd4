// `data:` URLs as clients send images ("data:image/png;base64,iVBOR…"), split into the
// internal model's mediaType + base64 data, and joined back for upstreams that want a URL.

export interface DataUrlParts {
  readonly mediaType: string;
  readonly data: string;
}

/** True when `url` uses the data: scheme (whatever its shape). */
export function isDataUrl(url: string): boolean {
  return /^data:/i.test(url);
}

/**
 * The media type and base64 payload of a base64 `data:` URL, or undefined when `url` is not
 * one (another scheme, no media type, or not base64-encoded). Media type parameters
 * (";charset=…", ";name=…") are dropped; the media type is lower-cased.
 */
export function parseDataUrl(url: string): DataUrlParts | undefined {
  const match = /^data:([^,]*?);base64,(.*)$/is.exec(url.trim());
  if (!match) return undefined;
  const mediaType = match[1]!.split(';')[0]!.trim().toLowerCase();
  const data = match[2]!.replace(/\s+/g, '');
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(mediaType) || data === '') return undefined;
  return { mediaType, data };
}

export function toDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
