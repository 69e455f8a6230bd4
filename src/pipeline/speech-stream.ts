// Speech streamed as the upstream speaks it (ElevenLabs' `/stream`): for a model whose every
// route can stream speech, a request (`stream_format` `audio` or `sse`) is quoted and held as a
// plain one, then the route's streamed operation is read through `chargedMediaCall`: each chunk
// of audio goes to the client in the tick it arrived — raw bytes (chunked), or base64
// `speech.audio.delta` events — and once the upstream ended, the charge (the input's characters,
// known before anything was sent) is settled and `speech.audio.done` sent. Charged once.
// An upstream failure before the first chunk is the plain JSON error, hold released (another
// route may be tried); after it, an SSE stream ends with an `error` event and a raw one is cut,
// hold released: speech cut short is not charged. A client that leaves before any audio was
// written to it tears the upstream call down, hold released; one that leaves after is charged
// the whole price, as the upstream charges it: the upstream is read to its end (seconds of
// audio) and the charge settled as for a completed stream (docs/vendors.md, ElevenLabs).
import { speechDeltaEvents, speechDoneEvent, speechErrorEvent } from '../dialects/openai-media/audio-events.js';
import type { SpeechBody } from '../dialects/openai-media/audio.js';
import { encodeOpenaiError } from '../dialects/shared/openai-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { type SpeechRequest, speechMediaTypes } from '../model/media.js';
import { countTextTokens } from '../model/token-estimate.js';
import { mediaAdapterFor } from '../vendors/registry.js';
import { quoteSpeech, speechCharge } from './audio.js';
import { chargedMediaCall, resolveMediaModel, type MediaCaller, type MediaEvents, type MediaServices } from './media.js';
import { ClientGoneError, type ResponseSink } from './sink.js';

/** True when every route of the request's model streams speech: then the answer is relayed as it comes. */
export function streamsSpeech(services: Pick<MediaServices, 'catalog' | 'upstreams'>, body: SpeechBody): boolean {
  const model = resolveMediaModel(services, body.model, ['tts']);
  return (
    model.routes.length > 0 &&
    model.routes.every((route) => {
      const upstream = services.upstreams.get(route.provider.name);
      return upstream !== undefined && mediaAdapterFor(upstream.kind, 'streamSpeech') !== undefined;
    })
  );
}

export async function streamSpeech(services: MediaServices & { readonly logger: { error(fields: object, message: string): void } }, caller: MediaCaller, body: SpeechBody, sink: ResponseSink): Promise<void> {
  caller.log.model = resolveMediaModel(services, body.model, ['tts']).id;
  const charge = speechCharge(body, quoteSpeech(services, body));
  const relay = new SpeechRelay(sink, body.stream_format, speechMediaTypes[body.response_format]);
  const abort = new AbortController();
  // Gone before any audio reached it: nothing delivered, nothing charged. After: read on, charged.
  sink.onClose(() => {
    if (!relay.committed) abort.abort(new ClientGoneError());
  });
  try {
    await chargedMediaCall<SpeechRequest, number, Uint8Array>(services, {
      caller,
      operation: 'streamSpeech',
      ...charge,
      events: relay,
      signal: abort.signal,
    });
  } catch (error) {
    if (error instanceof ClientGoneError) return;
    if (!relay.committed) throw error;
    relay.fail(error, caller.requestId);
    if (error instanceof GatewayError) caller.log.failure = error;
    else services.logger.error({ err: error, request_id: caller.requestId }, 'speech stream failed');
    return;
  }
  relay.finish({ input_tokens: countTextTokens(body.input), output_tokens: 0 });
}

/** The stream's side of one request: each chunk written as it comes (the response committed on the first). */
class SpeechRelay implements MediaEvents<Uint8Array, number> {
  committed = false;
  private bytes = 0;

  constructor(
    private readonly sink: ResponseSink,
    private readonly format: SpeechBody['stream_format'],
    private readonly mediaType: string,
  ) {}

  readonly onEvent = (chunk: Uint8Array): void => {
    this.bytes += chunk.length;
    this.write(this.format === 'sse' ? speechDeltaEvents(chunk) : chunk);
  };

  /** The audio's length in bytes (the charge is the characters', known before). */
  readonly result = (): number => this.bytes;

  readonly started = (): boolean => this.bytes > 0;

  finish(usage: { input_tokens: number; output_tokens: number }): void {
    if (this.format === 'sse') this.write(speechDoneEvent(usage));
    this.commit();
    this.sink.end();
  }

  fail(error: unknown, requestId: string): void {
    // Raw audio has no place for an error: the connection is cut, so the client sees it broken.
    if (this.format !== 'sse') return this.sink.abort();
    const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error', `The speech stream failed (request ${requestId}).`);
    this.write(speechErrorEvent(encodeOpenaiError(gatewayError, requestId)));
    this.sink.end();
  }

  private write(data: string | Uint8Array): void {
    this.commit();
    this.sink.write(data);
  }

  private commit(): void {
    if (this.committed) return;
    this.committed = true;
    this.sink.startStream(this.format === 'sse' ? 'text/event-stream; charset=utf-8' : this.mediaType);
  }
}
