// What the prefixed vendor simulators share: reading a JSON body, answering JSON, and state
// that lives as long as one simulator (keyed by its usage book, which each simulator owns).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { UsageBook } from '../usage-book.js';

/** Largest body a vendor simulator reads (the vendors' own limits are about this). */
export const maxVendorBodyBytes = 32 * 1024 * 1024;

/** A body over a simulator's limit: each simulator answers it in its vendor's own 413 shape. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`request body larger than ${maxBytes} bytes`);
  }
}

/**
 * The whole request body. One larger than `maxBytes` is read to its end (so the 413 goes out on
 * a drained connection) without being kept, then refused with `tooLarge` — never handed on cut.
 */
export async function readRawBody(request: IncomingMessage, maxBytes = maxVendorBodyBytes, tooLarge: (maxBytes: number) => Error = (max) => new BodyTooLarge(max)): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes) throw tooLarge(maxBytes);
  return Buffer.concat(chunks);
}

export function sendJsonAnswer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  response.end(text);
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** State of one simulator instance for a vendor: created on first use, gone with the simulator. */
export function perSimulator<State>(create: () => State): (book: UsageBook) => State {
  const states = new WeakMap<UsageBook, State>();
  return (book) => {
    let state = states.get(book);
    if (!state) {
      state = create();
      states.set(book, state);
    }
    return state;
  };
}
