// Builds multipart/form-data bodies byte by byte, so the hostile inputs can also build broken ones.

export interface FormPart {
  readonly name: string;
  readonly value: string | Uint8Array;
  readonly filename?: string;
  readonly contentType?: string;
}

export function multipartBody(parts: readonly FormPart[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export function multipartHeaders(boundary: string): Record<string, string> {
  return { 'content-type': `multipart/form-data; boundary=${boundary}` };
}
