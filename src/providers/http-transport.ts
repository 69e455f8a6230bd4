// The one HTTP client of every upstream: an undici Agent (connection pool, keep-alive) per
// provider, created once at start; requests are always streamed and parsed as SSE with
// eventsource-parser; a non-2xx answer becomes the adapter's UpstreamError before any byte
// reaches the client. Aborting the signal (client gone) tears the upstream request down.
import { createParser } from 'eventsource-parser';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { ProviderAdapter, SseEvent, UpstreamHttpRequest } from './types.js';
import { UpstreamError } from './types.js';

export interface Upstream {
  readonly name: string;
  readonly kind: string;
  /** The chat adapter; undefined for kinds that only do media (system-one, upscaler). */
  readonly adapter?: ProviderAdapter;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly dispatcher: Agent;
}

export function createDispatcher(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256, pipelining: 1 });
}

/**
 * Sends the request and resolves once the upstream answered 2xx, with an iterator over its
 * SSE events. Rejects with UpstreamError on a non-2xx answer, a network error or a timeout.
 */
export async function openEventStream(
  upstream: Upstream,
  adapter: ProviderAdapter,
  httpRequest: UpstreamHttpRequest,
  signal: AbortSignal,
): Promise<AsyncIterable<SseEvent>> {
  let response;
  try {
    response = await request(httpRequest.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...httpRequest.headers },
      body: JSON.stringify(httpRequest.body),
      dispatcher: upstream.dispatcher,
      signal,
      headersTimeout: upstream.timeoutMs,
      bodyTimeout: upstream.timeoutMs,
    });
  } catch (error) {
    throw toUpstreamError(error, upstream.name);
  }
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const text = await response.body.text().catch(() => '');
    const error = adapter.parseError(response.statusCode, text);
    error.retryAfterMs ??= retryAfterMs(response.headers);
    throw error;
  }
  return sseEvents(response.body, upstream.name);
}

/** `retry-after-ms` (ms) or `retry-after` (seconds or an HTTP date), as the SDKs read them. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const first = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const milliseconds = Number(first('retry-after-ms'));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const value = first('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) && date > Date.now() ? date - Date.now() : undefined;
}

async function* sseEvents(body: AsyncIterable<Buffer>, name: string): AsyncGenerator<SseEvent> {
  const queue: SseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => queue.push(event.event ? { event: event.event, data: event.data } : { data: event.data }),
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
  } catch (error) {
    throw toUpstreamError(error, name);
  }
  parser.feed(decoder.decode());
  while (queue.length > 0) yield queue.shift()!;
}

function toUpstreamError(error: unknown, name: string): Error {
  if (error instanceof UpstreamError) return error;
  if ((error as Error).name === 'AbortError') return error as Error;
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    const timeout = new UpstreamError(`upstream "${name}" timed out`, 504, true, 'timeout');
    return timeout;
  }
  return new UpstreamError(`upstream "${name}" connection failed: ${(error as Error).message}`, 0, true, 'connection_error');
}
