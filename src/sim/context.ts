// What a protocol handler receives for one request, and the plain JSON answer. Kept apart from
// server.ts so the protocol modules do not import the router.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PrefixCache } from './prefix-cache.js';
import type { ClientWatch } from './sse-writer.js';
import type { UsageBook } from './usage-book.js';

export interface SimContext {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The parsed JSON body. */
  readonly body: unknown;
  /** sha256 of the raw body, hex: the request's identity for ids and filler. */
  readonly seed: string;
  /** Echoed as x-request-id and request-id on every answer. */
  readonly requestId: string;
  readonly watch: ClientWatch;
  readonly signingSecret: string;
  readonly cache: PrefixCache;
  /** What this simulator would bill (its usage API reads it). */
  readonly usage: UsageBook;
}

export function requestIdHeaders(requestId: string): Record<string, string> {
  return { 'x-request-id': requestId, 'request-id': requestId };
}

export function sendJson(context: Pick<SimContext, 'response' | 'requestId' | 'watch'>, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (context.watch.closed || context.response.headersSent) return;
  const text = JSON.stringify(body);
  context.response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...requestIdHeaders(context.requestId),
    ...headers,
  });
  context.response.end(text);
}

/** Non-stream [[sim:drop]]: the connection dies before any answer. */
export function dropConnection(context: Pick<SimContext, 'response'>): void {
  context.response.socket?.destroy();
}
