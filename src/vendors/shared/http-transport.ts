// The one HTTP client of every upstream: an undici Agent (connection pool, keep-alive) per
// provider, created once at start; requests are always streamed, cut into events by the
// adapter's framing (stream-framing.ts: SSE with eventsource-parser, JSON lines, or AWS's binary
// event stream); a non-2xx answer becomes the adapter's UpstreamError before any byte
// reaches the client. Aborting the signal (client gone) tears the upstream request down.
// A vendor that signs each request over its bytes (AWS SigV4, Vendor.signRequest) signs it
// here, once the body is serialized: what was signed is exactly what is sent.
//
// The request goes through undici's dispatch with a handler of its own (EventStreamCall)
// rather than `request()`: its bytes are handed to the SSE parser as undici reads them, with no
// Readable stream, async iterator or promise per chunk in between (about 10 µs of CPU per
// request at 50 connections, docs/performance.md).
import type { Dispatcher } from 'undici';
import { Agent, errors as undiciErrors } from '../../util/http-client.js';
import type { ChatAdapter, SseEvent, UpstreamHttpRequest } from '../types.js';
import { UpstreamError } from '../types.js';
import { createFramer, type EventFramer } from './stream-framing.js';

export interface Upstream {
  readonly name: string;
  readonly kind: string;
  /** The chat adapter; undefined for kinds that only do media (system-one, upscaler). */
  readonly adapter?: ChatAdapter;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly dispatcher: Agent;
  /** The provider's vendor-specific settings (Vendor.providerSettings), as configured. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The values of its `…_env` settings, by name without `_env`. */
  readonly secrets: Readonly<Record<string, string | undefined>>;
  /** The credential to send instead of apiKey, when the vendor exchanges one (Vendor.credentials). */
  readonly credential?: (signal: AbortSignal) => Promise<string>;
  /** Headers that sign the request as it will be sent, when the vendor signs each one (Vendor.signRequest). */
  readonly sign?: (request: SignableRequest) => Promise<Record<string, string>>;
}

/**
 * A request exactly as it goes on the wire, for a vendor that signs each one over its bytes
 * (AWS SigV4): `headers` are all the headers the transport sends (lowercase names), `body` the
 * serialized body.
 */
export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What a vendor's credential exchange reads of its upstream. */
export type CredentialSource = Pick<Upstream, 'name' | 'baseUrl' | 'apiKey' | 'settings' | 'secrets' | 'dispatcher' | 'timeoutMs'>;

export function createDispatcher(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256, pipelining: 1 });
}

/**
 * Reads the stream to its end, calling `onEvent` for each event as it is parsed (in the tick
 * its bytes arrived: no queue, no promise per event). Resolves at the end of the stream;
 * rejects with UpstreamError when the connection fails, or with what `onEvent` threw — the
 * upstream request is then torn down.
 */
export type EventReader = (onEvent: (event: SseEvent) => void) => Promise<void>;

/**
 * Sends the request and resolves once the upstream answered 2xx, with the reader of its SSE
 * events. Rejects with UpstreamError on a non-2xx answer, a network error or a timeout; an
 * aborted signal tears the request down, and the failure it causes is a connection error (the
 * caller, which aborted, reads the signal's reason instead: src/pipeline/chat.ts).
 */
export function openEventStream(upstream: Upstream, adapter: ChatAdapter, httpRequest: UpstreamHttpRequest, signal: AbortSignal): Promise<EventReader> {
  if (signal.aborted) return Promise.reject(toUpstreamError(signal.reason, upstream.name));
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', ...httpRequest.headers };
  const body = JSON.stringify(httpRequest.body);
  if (upstream.sign) return signThenOpen(upstream, adapter, httpRequest.url, headers, body, signal);
  return dispatchEventStream(upstream, adapter, httpRequest.url, headers, body, signal);
}

/** The signing vendors' path (AWS): sign over the final headers and body, then send just that. */
async function signThenOpen(upstream: Upstream, adapter: ChatAdapter, url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<EventReader> {
  const lowercase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const signed = { ...lowercase, ...(await upstream.sign!({ method: 'POST', url, headers: lowercase, body })) };
  return dispatchEventStream(upstream, adapter, url, signed, body, signal);
}

function dispatchEventStream(upstream: Upstream, adapter: ChatAdapter, url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<EventReader> {
  if (signal.aborted) return Promise.reject(toUpstreamError(signal.reason, upstream.name));
  const { origin, path } = originAndPath(url);
  return new Promise<EventReader>((resolve, reject) => {
    const call = new EventStreamCall(upstream.name, adapter, signal, resolve, reject);
    upstream.dispatcher.dispatch({ origin, path, method: 'POST', headers, body, headersTimeout: upstream.timeoutMs, bodyTimeout: upstream.timeoutMs }, call);
  });
}

/** Largest error body kept for the adapter's parseError (an error is a short JSON document). */
const maxErrorBodyBytes = 1024 * 1024;

/**
 * One upstream request, from its dispatch to the end of its body. Before the answer's head it
 * settles the promise of openEventStream; after a 2xx head, its body goes to the reader — or
 * waits in `early` for it, when bytes come in the same read as the head, before the caller
 * had the reader. Its methods never throw into undici.
 */
class EventStreamCall implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  /** The 2xx answer's bytes that came before the reader; its end or failure too. */
  private early: Buffer[] | undefined = [];
  private ended = false;
  private failed: unknown;
  /** A non-2xx answer: its status, headers and body so far. */
  private refusal: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer[]; bytes: number } | undefined;
  /** Set once the reader is called. */
  private reading: { framer: EventFramer; resolve(): void; reject(error: unknown): void; failure?: { error: unknown } } | undefined;
  private opened = false;

  constructor(
    private readonly name: string,
    private readonly adapter: ChatAdapter,
    private readonly signal: AbortSignal,
    private readonly resolveOpen: (reader: EventReader) => void,
    private readonly rejectOpen: (error: unknown) => void,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.controller?.abort(this.signal.reason);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Aborted while the request waited for a connection.
    if (this.signal.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200 || statusCode >= 300) {
      this.refusal = { status: statusCode, headers, body: [], bytes: 0 };
      return;
    }
    this.opened = true;
    this.resolveOpen(this.read);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.refusal) {
      if (this.refusal.bytes < maxErrorBodyBytes) this.refusal.body.push(chunk);
      this.refusal.bytes += chunk.length;
    } else if (this.reading) this.feed(chunk);
    else this.early?.push(chunk);
  }

  onResponseEnd(): void {
    this.done();
    if (this.refusal) {
      const { status, headers, body } = this.refusal;
      let error: UpstreamError;
      try {
        error = this.adapter.parseError(status, Buffer.concat(body).toString('utf8'), headers);
        error.retryAfterMs ??= retryAfterMs(headers);
      } catch (parseFailure) {
        this.rejectOpen(parseFailure);
        return;
      }
      this.rejectOpen(error);
      return;
    }
    if (!this.reading) {
      this.ended = true;
      return;
    }
    const { reading } = this;
    if (failureOf(reading)) return;
    try {
      reading.framer.end();
    } catch (error) {
      reading.failure ??= { error };
    }
    const failure = failureOf(reading);
    if (failure) reading.reject(failure.error);
    else reading.resolve();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.done();
    if (!this.opened) {
      this.rejectOpen(toUpstreamError(error, this.name));
      return;
    }
    if (!this.reading) {
      this.failed = error;
      return;
    }
    // Torn down because the consumer threw: its error, not the teardown's. Else the failure
    // stops the events still in this read from reaching the consumer.
    this.reading.failure ??= { error: toUpstreamError(error, this.name) };
    this.reading.reject(this.reading.failure.error);
  }

  private done(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private readonly read: EventReader = (onEvent) =>
    new Promise<void>((resolve, reject) => {
      const reading: NonNullable<EventStreamCall['reading']> = {
        resolve,
        reject,
        framer: createFramer(this.adapter.framing, (event) => {
          if (reading.failure) return;
          try {
            onEvent(event);
          } catch (error) {
            reading.failure = { error };
          }
        }),
      };
      this.reading = reading;
      const early = this.early!;
      this.early = undefined;
      for (const chunk of early) this.feed(chunk);
      if (failureOf(reading)) return;
      if (this.failed !== undefined) reject(toUpstreamError(this.failed, this.name));
      // The end came with the head: finish on the next tick, after the one on which Node sends
      // what the events above wrote to the client (its http corks the socket until then).
      // Finishing now would run the caller's end-of-stream work (the settle) first and hold the
      // client's first bytes back by its length (~0.1 ms at one connection).
      else if (this.ended) process.nextTick(() => this.onResponseEnd());
    });

  private feed(chunk: Buffer): void {
    const reading = this.reading!;
    if (reading.failure) return;
    try {
      reading.framer.feed(chunk);
    } catch (error) {
      // A framing that cannot cut the bytes (a broken AWS event-stream message) or that found
      // an in-stream exception: the read ends with its UpstreamError, as a consumer's would.
      reading.failure ??= { error };
    }
    const failure = failureOf(reading);
    if (!failure) return;
    // What onEvent threw ends the read at once; the upstream request is torn down (its
    // onResponseError then settles nothing more: the reader has its error).
    reading.reject(failure.error);
    this.controller?.abort(new Error('the consumer of the upstream events failed'));
  }
}

/** What the reader's consumer threw (a call, not a property read: TypeScript would keep it narrowed across the parser's callbacks). */
function failureOf(reading: { failure?: { error: unknown } }): { error: unknown } | undefined {
  return reading.failure;
}

/** Origin and path of each upstream URL, parsed once (a provider's URLs are a handful). */
const parsedUrls = new Map<string, { origin: string; path: string }>();
const maxParsedUrls = 1_000;

function originAndPath(url: string): { origin: string; path: string } {
  let parsed = parsedUrls.get(url);
  if (!parsed) {
    const { origin, pathname, search } = new URL(url);
    parsed = { origin, path: `${pathname}${search}` };
    if (parsedUrls.size >= maxParsedUrls) parsedUrls.clear();
    parsedUrls.set(url, parsed);
  }
  return parsed;
}

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

function toUpstreamError(error: unknown, name: string): Error {
  if (error instanceof UpstreamError) return error;
  if ((error as Error).name === 'AbortError') return error as Error;
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    const timeout = new UpstreamError(`upstream "${name}" timed out`, 504, true, 'timeout');
    return timeout;
  }
  return new UpstreamError(`upstream "${name}" connection failed: ${(error as Error).message}`, 0, true, 'connection_error');
}
