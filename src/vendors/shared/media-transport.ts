// The HTTP client of the synchronous media operations: one request through the upstream's own
// undici pool, the whole answer read into memory (media answers are a file, not a stream),
// with a cap so that a misbehaving upstream cannot exhaust the process. A non-2xx answer goes
// through the adapter's parseError, with the upstream's Retry-After; sockets failing and
// timeouts become UpstreamError; the caller aborting its signal passes its AbortError through.
import type { Dispatcher } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors as undiciErrors, request } from '../../util/http-client.js';
import { retryAfterMs, type Upstream } from './http-transport.js';
import { UpstreamError } from '../types.js';
import type { MediaAdapter, MediaHttpRequest, MediaHttpResponse, MediaOperation, MediaStreamOperation, MediaTarget } from '../media-types.js';
import { createFramer, type EventFramer } from './stream-framing.js';

/** Most follow-ups of one asynchronous operation (polls and the result's fetch): at 1 s apiece, 10 minutes. */
export const maxMediaFollowUps = 600;

/** Largest successful answer read (a 4x upscale of a large image is tens of MB; 200 MB is far beyond any). */
export const maxMediaResponseBytes = 200 * 1024 * 1024;
/** An error body is only a message: what is beyond this is not read. */
const maxErrorBodyBytes = 64 * 1024;

export interface SendMediaOptions {
  /** Cap of a 2xx body (default maxMediaResponseBytes). */
  readonly maxBodyBytes?: number;
}

export async function sendMedia(
  upstream: Upstream,
  httpRequest: MediaHttpRequest,
  signal: AbortSignal,
  parseError: MediaAdapter['parseError'],
  options: SendMediaOptions = {},
): Promise<MediaHttpResponse> {
  const maxBodyBytes = options.maxBodyBytes ?? maxMediaResponseBytes;
  const response = await openMedia(upstream, httpRequest, signal, parseError);
  const { statusCode, headers } = response;
  let body: Uint8Array;
  try {
    body = await readBody(response.body, maxBodyBytes, 'refuse', contentLength(headers));
  } catch (error) {
    if (error instanceof TooLarge) throw tooLarge(upstream.name, maxBodyBytes);
    throw transportError(error, upstream.name, signal);
  }
  return { url: httpRequest.url, status: statusCode, headers, body };
}

/** Sends the request; resolves with a 2xx answer whose body is still to read, or throws the adapter's error of any other. */
async function openMedia(upstream: Upstream, httpRequest: MediaHttpRequest, signal: AbortSignal, parseError: MediaAdapter['parseError']): Promise<Dispatcher.ResponseData> {
  const encoded = await encodeBody(httpRequest);
  let response: Dispatcher.ResponseData;
  try {
    response = await request(httpRequest.url, {
      method: httpRequest.method,
      ...encoded,
      dispatcher: upstream.dispatcher,
      signal,
      headersTimeout: upstream.timeoutMs,
      bodyTimeout: upstream.timeoutMs,
    });
  } catch (error) {
    throw transportError(error, upstream.name, signal);
  }
  const { statusCode, headers } = response;
  if (statusCode < 200 || statusCode >= 300) {
    const text = await readBody(response.body, maxErrorBodyBytes, 'truncate')
      .then((bytes) => new TextDecoder().decode(bytes))
      .catch(() => '');
    const error = parseError(statusCode, text);
    error.retryAfterMs ??= retryAfterMs(headers);
    throw error;
  }
  return response;
}

function tooLarge(name: string, maxBodyBytes: number): UpstreamError {
  return new UpstreamError(`upstream "${name}" answered more than ${maxBodyBytes} bytes; the gateway does not read answers that large`, 502, false, 'response_too_large');
}

/**
 * Build → send → each server-sent event parsed and handed to `onEvent` as its bytes arrive (a
 * streamed image answer: its previews reach the client while the image is drawn), or with
 * `framing: 'bytes'` each chunk of the body as read (streamed speech: the audio reaches the
 * client while it is spoken). Resolves once the stream ended with its final event; what
 * `onEvent` throws, an in-stream error or a cut stream rejects, and the upstream request is
 * torn down. Capped as a whole answer is.
 */
export async function streamMediaOperation<Request, Event>(
  upstream: Upstream,
  operation: MediaStreamOperation<Request, Event>,
  mediaRequest: Request,
  target: MediaTarget,
  signal: AbortSignal,
  parseError: MediaAdapter['parseError'],
  onEvent: (event: Event) => void,
): Promise<void> {
  if (upstream.credential) target = { ...target, apiKey: await upstream.credential(signal) };
  const httpRequest = operation.build(mediaRequest, target);
  const response = await openMedia(upstream, { ...httpRequest, headers: { accept: 'text/event-stream', ...httpRequest.headers } }, signal, parseError);
  const framer = framerOf(operation, mediaRequest, target, onEvent);
  // What the parser or the consumer threw is the failure as it is; a broken connection is the transport's.
  let failure: { error: unknown } | undefined;
  let length = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > maxMediaResponseBytes) throw tooLarge(upstream.name, maxMediaResponseBytes);
      try {
        framer.feed(chunk);
      } catch (error) {
        failure = { error };
        // The upstream request is torn down: nothing more of it is read.
        destroy(response.body);
        break;
      }
    }
  } catch (error) {
    throw transportError(error, upstream.name, signal);
  }
  if (failure) throw failure.error;
  framer.end();
}

/** The body cut as the operation reads it, each part parsed and handed on; `end` ends the parser too. */
function framerOf<Request, Event>(operation: MediaStreamOperation<Request, Event>, mediaRequest: Request, target: MediaTarget, onEvent: (event: Event) => void): EventFramer {
  if (operation.framing === 'bytes') {
    const parser = operation.createParser(mediaRequest, target);
    return {
      feed: (chunk) => {
        for (const parsed of parser.push(chunk)) onEvent(parsed);
      },
      end: () => parser.end(),
    };
  }
  const parser = operation.createParser(mediaRequest, target);
  const framer = createFramer('sse', (event) => {
    for (const parsed of parser.push(event)) onEvent(parsed);
  });
  return {
    feed: (chunk) => framer.feed(chunk),
    end: () => {
      framer.end();
      parser.end();
    },
  };
}

/** Build → send → parse, in one call: what a route does with one route's upstream. */
export async function runMediaOperation<Request, Result>(
  upstream: Upstream,
  operation: MediaOperation<Request, Result>,
  mediaRequest: Request,
  target: MediaTarget,
  signal: AbortSignal,
  parseError: MediaAdapter['parseError'],
  options?: SendMediaOptions,
): Promise<Result> {
  if (upstream.credential) target = { ...target, apiKey: await upstream.credential(signal) };
  let response = await sendMedia(upstream, operation.build(mediaRequest, target), signal, parseError, options);
  for (let followed = 0; ; followed++) {
    const next = operation.follow?.(response, mediaRequest, target);
    if (!next) return operation.parse(response, mediaRequest, target);
    if (followed === maxMediaFollowUps) {
      throw new UpstreamError(`upstream "${upstream.name}" did not finish the operation after ${maxMediaFollowUps} polls`, 504, true, 'upstream_timeout');
    }
    if (next.delayMs > 0) await sleep(next.delayMs, undefined, { signal });
    response = await sendMedia(upstream, next.request, signal, parseError, options);
  }
}

async function encodeBody(httpRequest: MediaHttpRequest): Promise<{ headers: Record<string, string>; body?: string | Buffer }> {
  const body = httpRequest.body;
  if (body === undefined) return { headers: httpRequest.headers };
  if ('json' in body) return { headers: { 'content-type': 'application/json', ...httpRequest.headers }, body: JSON.stringify(body.json) };
  // Encoded by the fetch implementation the FormData belongs to (Node's bundled undici):
  // undici 7 encodes only instances of its own FormData class and fails on the global one
  // ("action is not a function"). The parts are in memory already (uploads are size-checked),
  // so one buffer costs a copy, nothing more. The content-type carries the boundary; one
  // given by the adapter could not, and is replaced.
  const encoded = new Response(body.form);
  const headers = Object.fromEntries(Object.entries(httpRequest.headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
  return { headers: { ...headers, 'content-type': encoded.headers.get('content-type')! }, body: Buffer.from(await encoded.arrayBuffer()) };
}

class TooLarge extends Error {}

/**
 * The whole body, at most `limit` bytes. `refuse`: more is an error (the body is destroyed,
 * which closes that connection rather than reading on); `truncate`: more is cut off.
 */
async function readBody(body: Dispatcher.ResponseData['body'], limit: number, overflow: 'refuse' | 'truncate', declaredLength?: number): Promise<Uint8Array> {
  if (overflow === 'refuse' && declaredLength !== undefined && declaredLength > limit) {
    // Said so up front: not a byte of it is worth reading.
    destroy(body);
    throw new TooLarge();
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (length + chunk.length > limit) {
      if (overflow === 'truncate') chunks.push(chunk.subarray(0, limit - length));
      length = limit;
      destroy(body);
      if (overflow === 'refuse') throw new TooLarge();
      break;
    }
    chunks.push(chunk);
    length += chunk.length;
  }
  return Buffer.concat(chunks, length);
}

/** Stops reading: closes that connection (the pool opens another) rather than draining the rest. */
function destroy(body: Dispatcher.ResponseData['body']): void {
  // Destroying emits an AbortError on the body; nobody else is listening any more.
  body.on('error', () => {});
  body.destroy();
}

function contentLength(headers: Dispatcher.ResponseData['headers']): number | undefined {
  const value = Number(headers['content-length']);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function transportError(error: unknown, name: string, signal: AbortSignal): Error {
  if (error instanceof UpstreamError) return error;
  if (signal.aborted) {
    // AbortSignal.timeout() is the caller's own deadline for the upstream: a timeout, like undici's.
    if ((signal.reason as Error | undefined)?.name === 'TimeoutError') return timeoutError(name);
    return error as Error;
  }
  if ((error as Error).name === 'AbortError') return error as Error;
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) return timeoutError(name);
  // Refused: the request never left, so nothing was made upstream (a job submit may go elsewhere).
  const refused = (error as { code?: string }).code === 'ECONNREFUSED';
  return new UpstreamError(`upstream "${name}" connection failed: ${(error as Error).message}`, 0, true, refused ? 'connection_refused' : 'connection_error');
}

function timeoutError(name: string): UpstreamError {
  return new UpstreamError(`upstream "${name}" timed out`, 504, true, 'timeout');
}
