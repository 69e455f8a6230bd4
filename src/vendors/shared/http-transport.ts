// The one HTTP client of every upstream: an undici Agent (connection pool, keep-alive) per
// provider, created once at start; requests are always streamed and parsed as SSE with
// eventsource-parser; a non-2xx answer becomes the adapter's UpstreamError before any byte
// reaches the client. Aborting the signal (client gone) tears the upstream request down.
import { createParser } from 'eventsource-parser';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { ChatAdapter, SseEvent, UpstreamHttpRequest } from '../types.js';
import { UpstreamError } from '../types.js';

export interface Upstream {
  readonly name: string;
  readonly kind: string;
  /** The chat adapter; undefined for kinds that only do media (system-one, upscaler). */
  readonly adapter?: ChatAdapter;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly dispatcher: Agent;
}

export function createDispatcher(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256, pipelining: 1 });
}

/**
 * Sends the request and resolves once the upstream answered 2xx, with the reader of its SSE
 * events. Rejects with UpstreamError on a non-2xx answer, a network error or a timeout.
 */
export async function openEventStream(
  upstream: Upstream,
  adapter: ChatAdapter,
  httpRequest: UpstreamHttpRequest,
  signal: AbortSignal,
): Promise<EventReader> {
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
  const body = response.body;
  return (onEvent) => readSseEvents(body, upstream.name, onEvent);
}

/**
 * Reads the stream to its end, calling `onEvent` for each event as it is parsed (in the tick
 * its bytes arrived: no queue, no promise per event). Resolves at the end of the stream;
 * rejects with UpstreamError when the connection fails, or with what `onEvent` threw — the
 * body is then torn down.
 */
export type EventReader = (onEvent: (event: SseEvent) => void) => Promise<void>;

/** `retry-after-ms` (ms) or `retry-after` (seconds or an HTTP date), as the SDKs read them. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const first = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  // Whole milliseconds, rounded up: the wait becomes a stored time (a job's next_run_at, a
  // bigint) and "retry-after-ms: 12.5" or "retry-after: 0.25" must not turn it fractional.
  const milliseconds = Number(first('retry-after-ms'));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return Math.ceil(milliseconds);
  const value = first('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) && date > Date.now() ? date - Date.now() : undefined;
}

async function readSseEvents(body: AsyncIterable<Buffer>, name: string, onEvent: (event: SseEvent) => void): Promise<void> {
  // What onEvent threw: kept apart from the connection's errors (never turned into an UpstreamError).
  let failure: { error: unknown } | undefined;
  const parser = createParser({
    onEvent: (event) => {
      if (failure) return;
      try {
        onEvent(event.event ? { event: event.event, data: event.data } : { data: event.data });
      } catch (error) {
        failure = { error };
      }
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (failure) break; // leaving the loop destroys the body: the upstream request ends
    }
  } catch (error) {
    throw toUpstreamError(error, name);
  }
  if (!failure) parser.feed(decoder.decode());
  if (failure) throw failure.error;
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
