// The SSE body of the image endpoints with `stream: true`, in OpenAI's events:
// `image_generation.partial_image` / `image_edit.partial_image` (a preview of the image being
// drawn, `partial_image_index` 0…) and `image_generation.completed` / `image_edit.completed`
// (one per image, with `usage`), each as `event: <type>` + `data: <json>`, as OpenAI sends them.
// With `partial_images` 1–3, on a model that streams them, the previews are the upstream's own,
// relayed as they come (pipeline/image-stream.ts). Without previews (`partial_images` 0 or
// absent) the upstream call is made whole, as for the audio events (audio-events.ts), and its
// images are sent as the completed events a streaming client waits for: the same bytes as a
// plain request, charged the same. An upstream failure after the first event ends the stream
// with an `error` event.
import type { GeneratedImage, ImageEventFacts, ImageTokenUsage } from '../../model/media.js';

export type ImageEventKind = 'image_generation' | 'image_edit';

/** What the request asked, for the fields the upstream did not state. */
export interface ImageEventsEcho {
  readonly background?: string;
  readonly outputFormat: string;
  readonly quality?: string;
  readonly size?: string;
  /** Estimated from the prompt, for an upstream that reports no token usage; images are charged per image. */
  readonly inputTokens: number;
}

function sseEvent(type: string, body: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
}

const formats: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

/** The fields every image event carries: what the upstream said of the image, else what was asked. */
function imageFields(image: GeneratedImage, echo: ImageEventsEcho, facts: ImageEventFacts, createdAt: number) {
  return {
    b64_json: Buffer.from(image.data).toString('base64'),
    background: facts.background ?? echo.background ?? 'auto',
    created_at: createdAt,
    // What the bytes are: a preview is relayed as the upstream drew it.
    output_format: formats[image.mediaType] ?? echo.outputFormat,
    quality: facts.quality ?? echo.quality ?? 'auto',
    size: facts.size ?? echo.size ?? 'auto',
  };
}

/** One preview. `createdAt`: Unix seconds, from the gateway's clock. */
export function partialImageEvent(kind: ImageEventKind, image: GeneratedImage, index: number, echo: ImageEventsEcho, facts: ImageEventFacts, createdAt: number): string {
  return sseEvent(`${kind}.partial_image`, { ...imageFields(image, echo, facts, createdAt), partial_image_index: index });
}

/** One finished image, with the upstream's token usage (or the prompt's estimate when it reported none). */
export function completedImageEvent(kind: ImageEventKind, image: GeneratedImage, echo: ImageEventsEcho, facts: ImageEventFacts, createdAt: number, usage?: ImageTokenUsage): string {
  const tokens = usage ?? { inputTokens: echo.inputTokens, inputTextTokens: echo.inputTokens, inputImageTokens: 0, outputTokens: 0 };
  return sseEvent(`${kind}.completed`, {
    ...imageFields(image, echo, facts, createdAt),
    usage: {
      input_tokens: tokens.inputTokens,
      input_tokens_details: { text_tokens: tokens.inputTextTokens, image_tokens: tokens.inputImageTokens },
      output_tokens: tokens.outputTokens,
      total_tokens: tokens.inputTokens + tokens.outputTokens,
    },
  });
}

/** The completed events of images made whole (no previews asked). */
export function imageEvents(kind: ImageEventKind, images: readonly GeneratedImage[], echo: ImageEventsEcho, createdAt: number): string {
  return images.map((image) => completedImageEvent(kind, image, echo, {}, createdAt)).join('');
}

/** The stream's end after a failure: `error` carries OpenAI's error object (the SDKs throw it as an APIError). */
export function imageErrorEvent(error: Record<string, unknown>): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', ...error })}\n\n`;
}
