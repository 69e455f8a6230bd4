// The HTTP plumbing of the simulated vendors under a prefix: the body read (capped like the
// rest of the simulator), JSON and byte answers.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const maxVendorBodyBytes = 32 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readRequestBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxVendorBodyBytes) {
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function answerJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  response.end(text);
}

export function answerBytes(response: ServerResponse, status: number, bytes: Uint8Array, contentType: string, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length), ...headers });
  response.end(bytes);
}
