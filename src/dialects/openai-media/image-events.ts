// The SSE body of the image endpoints with `stream: true`, in OpenAI's events:
// `image_generation.completed` (generations) and `image_edit.completed` (edits), one per image.
// As for the audio events (audio-events.ts), the upstream call is made whole (every upstream
// kind answers images so), then its images are sent as the events a streaming client waits
// for: the same bytes as a plain request, charged the same. No `partial_image` event is sent:
// OpenAI's own stream may end before the asked `partial_images` are made, and the gateway has
// no upstream partial to send.
import type { GeneratedImage } from '../../model/media.js';

export interface ImageEventsEcho {
  readonly background?: string;
  readonly outputFormat: string;
  readonly quality?: string;
  readonly size?: string;
  /** Estimated from the prompt (the upstream's token usage is not carried); images are charged per image. */
  readonly inputTokens: number;
}

export function imageEvents(kind: 'image_generation' | 'image_edit', images: readonly GeneratedImage[], echo: ImageEventsEcho): string {
  const createdAt = Math.floor(Date.now() / 1000);
  let body = '';
  for (const image of images) {
    const event = {
      type: `${kind}.completed`,
      b64_json: Buffer.from(image.data).toString('base64'),
      background: echo.background ?? 'auto',
      created_at: createdAt,
      output_format: echo.outputFormat,
      quality: echo.quality ?? 'auto',
      size: echo.size ?? 'auto',
      usage: {
        input_tokens: echo.inputTokens,
        input_tokens_details: { text_tokens: echo.inputTokens, image_tokens: 0 },
        output_tokens: 0,
        total_tokens: echo.inputTokens,
      },
    };
    body += `data: ${JSON.stringify(event)}\n\n`;
  }
  return body;
}
