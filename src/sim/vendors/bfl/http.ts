// The HTTP plumbing of the simulated vendors under a prefix: the body read (capped like the
// rest of the simulator), JSON and byte answers.
import type { IncomingMessage, ServerResponse } from 'node:http';

// The body read is the simulators' shared one (prefixed-wire.ts); FLUX and ElevenLabs read it under this name.
export { BodyTooLarge, maxVendorBodyBytes, readRawBody as readRequestBody } from '../prefixed-wire.js';

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
