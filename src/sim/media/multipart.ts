// A small multipart/form-data parser (RFC 7578) for the simulator's upload endpoints: the
// boundary from the content-type, the parts split on it, each part's headers (name, filename,
// content-type from Content-Disposition / Content-Type). Bodies are buffered (the server caps
// them), so this is a plain split, not a streaming parser.

export interface MultipartPart {
  /** The form field name (`image`, `image[]`, `file`, `prompt`…). */
  readonly name: string;
  /** Present for file parts (the SDKs always send one for uploads). */
  readonly filename?: string;
  readonly contentType?: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly data: Buffer;
}

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartError';
  }
}

/** Splits `a=1; b="x;y"` into lower-cased keys and unquoted values (backslash escapes honoured). */
export function parseHeaderParameters(value: string): { value: string; parameters: Record<string, string> } {
  const parameters: Record<string, string> = {};
  const first = value.indexOf(';');
  const head = (first === -1 ? value : value.slice(0, first)).trim();
  const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const match of value.matchAll(pattern)) {
    const key = match[1]!.toLowerCase();
    parameters[key] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!.trim();
  }
  return { value: head, parameters };
}

/** The boundary of a `multipart/form-data; boundary=…` content-type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const { value, parameters } = parseHeaderParameters(contentType);
  if (value.toLowerCase() !== 'multipart/form-data') return undefined;
  const boundary = parameters.boundary;
  return boundary && boundary.length <= 200 ? boundary : undefined;
}

function decodeExtended(value: string): string {
  // RFC 5987: charset'language'percent-encoded
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  try {
    return decodeURIComponent(match ? match[2]! : value);
  } catch {
    return value;
  }
}

/** Every part of a multipart/form-data body, in order. Throws MultipartError when malformed. */
export function parseMultipart(body: Uint8Array, boundary: string): MultipartPart[] {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const separator = Buffer.from(`\r\n--${boundary}`, 'latin1');
  const parts: MultipartPart[] = [];
  // The first delimiter may follow a preamble; it starts the body or a line.
  let at = buffer.subarray(0, delimiter.length).equals(delimiter) ? 0 : buffer.indexOf(separator);
  if (at === -1) throw new MultipartError('no multipart boundary found in the body');
  if (at !== 0) at += 2;
  at += delimiter.length;
  for (;;) {
    if (buffer[at] === 0x2d && buffer[at + 1] === 0x2d) return parts; // closing "--"
    // Transport padding (spaces/tabs) may follow a delimiter before its CRLF.
    while (buffer[at] === 0x20 || buffer[at] === 0x09) at++;
    if (buffer[at] !== 0x0d || buffer[at + 1] !== 0x0a) throw new MultipartError('malformed multipart delimiter line');
    at += 2;
    const headerEnd = buffer.indexOf('\r\n\r\n', at, 'latin1');
    if (headerEnd === -1) throw new MultipartError('multipart part without the end of its headers');
    const headerText = buffer.toString('utf8', at, headerEnd);
    const dataStart = headerEnd + 4;
    const end = buffer.indexOf(separator, dataStart);
    if (end === -1) throw new MultipartError('multipart body without its closing boundary');
    const headers: Record<string, string> = {};
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const disposition = parseHeaderParameters(headers['content-disposition'] ?? '');
    if (disposition.value.toLowerCase() !== 'form-data' || disposition.parameters.name === undefined) {
      throw new MultipartError('multipart part without Content-Disposition: form-data; name=…');
    }
    const filename = disposition.parameters['filename*'] !== undefined ? decodeExtended(disposition.parameters['filename*']) : disposition.parameters.filename;
    parts.push({
      name: disposition.parameters.name,
      ...(filename !== undefined ? { filename } : {}),
      ...(headers['content-type'] !== undefined ? { contentType: headers['content-type'] } : {}),
      headers,
      data: buffer.subarray(dataStart, end),
    });
    at = end + separator.length;
  }
}

/** Scalar fields of a form: the last text value of each name (file parts included as UTF-8). */
export function formFields(parts: readonly MultipartPart[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of parts) if (part.filename === undefined) fields.set(part.name, part.data.toString('utf8'));
  return fields;
}
