// OpenAI images streamed (wire-formats.md §4): the generation or edit request with
// `stream: true` and `partial_images: N` answers server-sent events,
// `image_generation.partial_image` / `image_edit.partial_image` (b64_json, partial_image_index,
// size, quality, background, output_format, created_at) while the image is drawn, then
// `image_generation.completed` / `image_edit.completed` (the same fields and `usage`), one per
// image. OpenAI may finish an image before all N previews are made. An `error` event (or any
// event carrying `error`) is the upstream's failure; a stream cut before a completed image is
// an incomplete one.
import type { GeneratedImage, ImageEventFacts, ImageGenerationRequest, ImageStreamEvent, ImageTokenUsage } from '../../model/media.js';
import { isObject, objectOf, parseEventJson, stringOf, type JsonObject } from '../shared/json.js';
import { errorFromStreamEvent, truncatedStreamError } from '../shared/upstream-errors.js';
import type { MediaStreamOperation, MediaStreamParser } from '../media-types.js';
import type { SseEvent } from '../types.js';
import { base64Bytes, imageMediaTypes, invalidResponse, sniffImageType } from '../shared/wire.js';
import { buildEdit, buildGeneration, imageFields, type OpenAiImageOptions } from './images.js';

type StreamedKind = 'image_generation' | 'image_edit';

/** The fields a streamed request adds: previews are asked for only by a request that wants them. */
function streamFields(request: ImageGenerationRequest) {
  return { stream: true, partial_images: request.partialImages ?? 0 };
}

export function imageGenerationStreamOperation(options: OpenAiImageOptions): MediaStreamOperation<ImageGenerationRequest, ImageStreamEvent> {
  return {
    build: (request, target) => buildGeneration(target, { ...imageFields(request, target, options), ...streamFields(request) }),
    createParser: (request) => imageStreamParser('image_generation', request),
  };
}

export function imageEditStreamOperation(options: OpenAiImageOptions): MediaStreamOperation<ImageGenerationRequest, ImageStreamEvent> {
  return {
    build: (request, target) => {
      const { stream, partial_images: partialImages } = streamFields(request);
      return buildEdit(request, target, { ...imageFields(request, target, options), stream: String(stream), partial_images: partialImages });
    },
    createParser: (request) => imageStreamParser('image_edit', request),
  };
}

export function imageStreamParser(kind: StreamedKind, request: ImageGenerationRequest): MediaStreamParser<ImageStreamEvent> {
  let sawEvent = false;
  let completed = 0;
  return {
    push(event: SseEvent): ImageStreamEvent[] {
      const data = event.data.trim();
      if (data === '' || data === '[DONE]') return [];
      const body = parseEventJson(data);
      sawEvent = true;
      if (event.event === 'error' || (isObject(body) && (body.type === 'error' || body.error !== undefined))) throw errorFromStreamEvent(body);
      if (!isObject(body)) throw invalidResponse('the upstream sent an image event that is not a JSON object');
      if (body.type === `${kind}.partial_image`) {
        const index = typeof body.partial_image_index === 'number' && Number.isInteger(body.partial_image_index) ? body.partial_image_index : 0;
        return [{ type: 'partial', index, image: imageOf(body, request, 'partial image'), facts: factsOf(body) }];
      }
      if (body.type === `${kind}.completed`) {
        completed++;
        const usage = usageOf(body.usage);
        return [{ type: 'completed', image: imageOf(body, request, 'image'), facts: factsOf(body), ...(usage ? { usage } : {}) }];
      }
      // Event types of a later API version: nothing the gateway relays.
      return [];
    },
    end(): void {
      if (completed === 0) throw truncatedStreamError(sawEvent);
    },
  };
}

function imageOf(body: JsonObject, request: ImageGenerationRequest, what: string): GeneratedImage {
  const b64 = stringOf(body.b64_json);
  if (!b64) throw invalidResponse(`the upstream's ${what} event has no b64_json`);
  const data = base64Bytes(b64);
  if (data.length === 0) throw invalidResponse(`the upstream's ${what} event is empty`);
  const declared = imageMediaTypes[stringOf(body.output_format) ?? request.outputFormat] ?? 'image/png';
  return { data, mediaType: sniffImageType(data) ?? declared };
}

function factsOf(body: JsonObject): ImageEventFacts {
  const facts: { -readonly [K in keyof ImageEventFacts]: ImageEventFacts[K] } = {};
  const size = stringOf(body.size);
  const quality = stringOf(body.quality);
  const background = stringOf(body.background);
  const outputFormat = stringOf(body.output_format);
  if (size) facts.size = size;
  if (quality) facts.quality = quality;
  if (background) facts.background = background;
  if (outputFormat) facts.outputFormat = outputFormat;
  return facts;
}

const whole = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);

/** `usage` of a completed event (gpt-image's token counts), when it has one. */
function usageOf(value: unknown): ImageTokenUsage | undefined {
  const usage = objectOf(value);
  if (!usage) return undefined;
  const details = objectOf(usage.input_tokens_details);
  return {
    inputTokens: whole(usage.input_tokens),
    inputTextTokens: whole(details?.text_tokens),
    inputImageTokens: whole(details?.image_tokens),
    outputTokens: whole(usage.output_tokens),
  };
}
