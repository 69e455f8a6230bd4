// The media contract: a media adapter is a set of pure request builders and response parsers
// for the operations one wire protocol supports (a vendor may have several, vendor.ts). The
// shared media transport (shared/media-transport.ts) sends the request and hands the raw
// response to the parser.
import type {
  DecisionRequest,
  DecisionResult,
  EmbeddingsRequest,
  EmbeddingsResult,
  GeneratedImage,
  ImageGenerationRequest,
  ImageStreamEvent,
  ImageUpscaleRequest,
  SpeechRequest,
  SpeechResult,
  TranscriptionRequest,
  TranscriptionResult,
} from '../model/media.js';
import type { SseEvent, UpstreamError } from './types.js';

export interface MediaTarget {
  /** The upstream's own model name (the route's `model`). */
  readonly model: string;
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** The provider's vendor-specific settings (a region, a project), when it has any. */
  readonly settings?: Readonly<Record<string, unknown>>;
}

/** A non-streaming upstream request: JSON or multipart. */
export interface MediaHttpRequest {
  readonly url: string;
  readonly method: 'POST' | 'GET';
  readonly headers: Record<string, string>;
  readonly body?: { readonly json: unknown } | { readonly form: FormData };
}

export interface MediaHttpResponse {
  /**
   * The URL that gave this answer (set by the transport): an asynchronous operation whose poll
   * answer does not repeat its own address (FLUX) polls that URL again.
   */
  readonly url?: string;
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Uint8Array;
}

/** The next request of an asynchronous operation, sent after `delayMs` (the upstream's pacing). */
export interface MediaFollowUp {
  readonly request: MediaHttpRequest;
  readonly delayMs: number;
}

/**
 * Build → send → parse. `parse` receives only 2xx responses; others go through parseError.
 * An asynchronous upstream (submit, then poll, then fetch the result: FLUX, YandexART) also has
 * `follow`: given each 2xx answer, the next request to send, or undefined when that answer is
 * the one `parse` reads. The transport follows at most `maxMediaFollowUps` times.
 */
export interface MediaOperation<Request, Result> {
  build(request: Request, target: MediaTarget): MediaHttpRequest;
  follow?(response: MediaHttpResponse, request: Request, target: MediaTarget): MediaFollowUp | undefined;
  parse(response: MediaHttpResponse, request: Request, target: MediaTarget): Result | Promise<Result>;
}

/**
 * Reads one streamed answer. Stateful; one per response. `Input` is what the body is cut into:
 * server-sent events, or the body's bytes as each chunk of them is read.
 */
export interface MediaStreamParser<Event, Input = SseEvent> {
  /** The events one upstream event (or chunk) stands for (may be none). Throws UpstreamError for an in-stream error event. */
  push(input: Input): Event[];
  /** The stream ended: throws UpstreamError when it was cut before its final event. */
  end(): void;
}

/**
 * An operation whose answer is streamed: build → send → each part parsed as it arrives
 * (shared/media-transport.ts `streamMediaOperation`). Pure, as MediaOperation. The answer is
 * server-sent events (OpenAI's images with `stream: true` and `partial_images`), or with
 * `framing: 'bytes'` a body read chunk by chunk as it comes (ElevenLabs' streamed speech).
 */
export type MediaStreamOperation<Request, Event> =
  | {
      readonly framing?: 'sse';
      build(request: Request, target: MediaTarget): MediaHttpRequest;
      createParser(request: Request, target: MediaTarget): MediaStreamParser<Event>;
    }
  | {
      readonly framing: 'bytes';
      build(request: Request, target: MediaTarget): MediaHttpRequest;
      createParser(request: Request, target: MediaTarget): MediaStreamParser<Event, Uint8Array>;
    };

export interface MediaAdapter {
  readonly kind: string;
  readonly generateImages?: MediaOperation<ImageGenerationRequest, GeneratedImage[]>;
  /** Image edits (reference images); same request type with `images` filled. */
  readonly editImages?: MediaOperation<ImageGenerationRequest, GeneratedImage[]>;
  /** Generations streamed with partial images (`partial_images`): previews, then each image. */
  readonly streamImages?: MediaStreamOperation<ImageGenerationRequest, ImageStreamEvent>;
  /** Edits streamed with partial images. */
  readonly streamImageEdits?: MediaStreamOperation<ImageGenerationRequest, ImageStreamEvent>;
  readonly upscaleImage?: MediaOperation<ImageUpscaleRequest, GeneratedImage>;
  readonly speech?: MediaOperation<SpeechRequest, SpeechResult>;
  /** Speech whose audio is relayed as the upstream makes it: each event is a chunk of the audio. */
  readonly streamSpeech?: MediaStreamOperation<SpeechRequest, Uint8Array>;
  readonly transcribe?: MediaOperation<TranscriptionRequest, TranscriptionResult>;
  readonly embed?: MediaOperation<EmbeddingsRequest, EmbeddingsResult>;
  readonly decide?: MediaOperation<DecisionRequest, DecisionResult>;
  parseError(status: number, body: string): UpstreamError;
}
