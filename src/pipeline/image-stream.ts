// Images streamed with previews (`stream: true`, `partial_images` 1–3, a model declaring
// `capabilities.partial_images`): checked and quoted as a plain request (a model that cannot
// stream previews was refused by the quote, before any hold), held, then the route's streamed
// operation read through `chargedMediaCall`: each preview is relayed to the client as it
// arrives, and the finished images are stored, charged exactly as a plain request (per image,
// at most n), recorded, and sent as the completed events. An upstream failure before the first
// event is the plain JSON error, hold released (another route may be tried); after it, the
// stream ends with an `error` event, hold released: nothing is charged for an image never
// completed. A client that leaves tears the upstream call down and the hold is released.
import { completedImageEvent, imageErrorEvent, partialImageEvent, type ImageEventKind, type ImageEventsEcho } from '../dialects/openai-media/image-events.js';
import type { ImageBody } from '../dialects/openai-media/images.js';
import { encodeOpenaiError } from '../dialects/shared/openai-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { inImageFormat } from '../media-files/image-format.js';
import type { ImageGenerationRequest, ImageStreamEvent, InputFile } from '../model/media.js';
import { countTextTokens } from '../model/token-estimate.js';
import type { StoredFile } from '../storage/files.js';
import { imagesCharge, prepareImages, recordImages, storeImages, type ImageServices } from './images.js';
import { chargedMediaCall, type MediaCaller, type MediaEvents } from './media.js';
import { ClientGoneError, type ResponseSink } from './sink.js';

type CompletedImage = Extract<ImageStreamEvent, { type: 'completed' }>;

/** What streaming adds to the image services: the keep-alive of a silent stream. */
export interface ImageStreamServices extends ImageServices {
  readonly config: ImageServices['config'] & { readonly server: { readonly streamKeepAliveMs: number } };
}

export async function streamImages(services: ImageStreamServices, caller: MediaCaller, body: ImageBody, references: readonly InputFile[], sink: ResponseSink): Promise<void> {
  const prepared = prepareImages(services, caller, body, references);
  const { model, unitPrice, size, request, edit } = prepared;
  const charge = imagesCharge(prepared, body.n);
  const echo: ImageEventsEcho = { background: body.background, outputFormat: body.output_format, quality: body.quality, size, inputTokens: countTextTokens(body.prompt) };
  const relay = new ImageRelay(sink, edit ? 'image_edit' : 'image_generation', echo, Math.floor(services.now() / 1000), services.config.server.streamKeepAliveMs);
  const abort = new AbortController();
  sink.onClose(() => abort.abort(new ClientGoneError()));
  let stored: StoredFile[] = [];
  let answered: CompletedImage[] = [];
  try {
    await chargedMediaCall<ImageGenerationRequest, CompletedImage[], ImageStreamEvent>(services, {
      caller,
      model,
      operation: edit ? 'streamImageEdits' : 'streamImages',
      request: { ...request, partialImages: body.partial_images ?? 0 },
      holdUnits: charge.holdUnits,
      actualUnits: (completed) => charge.actualUnits(completed.length),
      description: charge.description,
      units: (completed) => charge.units(completed.length),
      keep: async (completed) => {
        // In the asked format before they are stored, as a plain request's.
        answered = await Promise.all(completed.slice(0, body.n).map(async (event) => ({ ...event, image: await inImageFormat(event.image, body.output_format) })));
        stored = await storeImages(services, caller, answered.map((event) => event.image));
      },
      events: relay,
      signal: abort.signal,
    });
  } catch (error) {
    relay.stop();
    // The client left: the hold was released, and there is no one to answer.
    if (error instanceof ClientGoneError) return;
    if (!relay.committed) throw error;
    relay.fail(error, caller.requestId);
    if (error instanceof GatewayError) caller.log.failure = error;
    else services.logger.error({ err: error, request_id: caller.requestId }, 'image stream failed');
    return;
  }
  relay.stop();
  await recordImages(services, caller, { model: model.id, prompt: body.prompt, unitPrice }, stored);
  relay.finish(answered);
}

/**
 * The stream's side of one request: previews written as they come (the response committed on
 * the first), the completed images collected for the charge path, then written once kept. A
 * stream silent for `keepAliveMs` (an image takes tens of seconds to draw) gets an SSE comment,
 * as chat's does: proxies do not time it out, and a client that left is noticed by the write
 * (its socket's end alone does not close a response in progress), which tears the upstream down.
 */
class ImageRelay implements MediaEvents<ImageStreamEvent, CompletedImage[]> {
  committed = false;
  private readonly completed: CompletedImage[] = [];
  private sawEvent = false;
  private lastWriteAt = performance.now();
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly sink: ResponseSink,
    private readonly kind: ImageEventKind,
    private readonly echo: ImageEventsEcho,
    /** Unix seconds, from the gateway's clock. */
    private readonly createdAt: number,
    keepAliveMs: number,
  ) {
    this.keepAlive = setInterval(() => this.ping(keepAliveMs), Math.min(1_000, keepAliveMs));
  }

  /** The upstream call is over: no more keep-alives. */
  stop(): void {
    clearInterval(this.keepAlive);
  }

  private ping(keepAliveMs: number): void {
    if (performance.now() - this.lastWriteAt >= keepAliveMs) this.write(': ping\n\n');
  }

  readonly onEvent = (event: ImageStreamEvent): void => {
    this.sawEvent = true;
    if (event.type === 'completed') {
      this.completed.push(event);
      return;
    }
    this.write(partialImageEvent(this.kind, event.image, event.index, this.echo, event.facts, this.createdAt));
  };

  readonly result = (): CompletedImage[] => this.completed;

  readonly started = (): boolean => this.sawEvent;

  finish(images: readonly CompletedImage[]): void {
    for (const event of images) this.write(completedImageEvent(this.kind, event.image, this.echo, event.facts, this.createdAt, event.usage));
    this.end();
  }

  fail(error: unknown, requestId: string): void {
    const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error', `The image stream failed (request ${requestId}).`);
    this.write(imageErrorEvent(encodeOpenaiError(gatewayError, requestId)));
    this.end();
  }

  private write(text: string): void {
    if (!this.committed) {
      this.committed = true;
      this.sink.startStream();
    }
    this.sink.write(text);
    this.lastWriteAt = performance.now();
  }

  private end(): void {
    if (!this.committed) {
      this.committed = true;
      this.sink.startStream();
    }
    this.sink.end();
  }
}
