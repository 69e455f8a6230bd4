// POST /v1/images/generations, /v1/images/edits (multipart) and /v1/images/price: parsed with
// the wire codec (dialects/openai-media/images.ts), answered as JSON or, with `stream: true`, as
// OpenAI's image events (image-events.ts): with `partial_images` above 0, the upstream's previews
// relayed as they come (pipeline/image-stream.ts). Pricing, the charge and the image history are
// the pipeline's (pipeline/images.ts).
import { imageEvents } from '../../dialects/openai-media/image-events.js';
import { editBody, encodeImages, imageBody, maxReferenceBytes, type ImageBody } from '../../dialects/openai-media/images.js';
import { imageType } from '../../media-files/inspect.js';
import type { InputFile } from '../../model/media.js';
import { countTextTokens } from '../../model/token-estimate.js';
import { streamImages } from '../../pipeline/image-stream.js';
import { generateImages as runGeneration, quoteImages } from '../../pipeline/images.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { koaSink } from '../koa-sink.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Context, type Handler } from '../state.js';
import { answerPrice } from './price-answer.js';

export const priceImages: Handler = (ctx, services) => {
  const body = validate(imageBody, ctx.request.body, 'body');
  const { model, unitPrice, totalUnits } = quoteImages(services, body);
  answerPrice(ctx, services, { object: 'image.price', model: model.id, priceUnits: totalUnits }, { n: body.n, unit_price_rub: unitPrice });
};

export const generateImages: Handler = (ctx, services) => respond(ctx, services, validate(imageBody, ctx.request.body, 'body'), []);

/** POST /v1/images/edits (multipart): reference images as `image` or the SDK's repeated `image[]`. */
export const editImages: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxReferenceBytes, maxFiles: 16 });
  const body = validate(editBody, form.fields, 'body');
  const references = form.files.filter((entry) => entry.field === 'image' || entry.field === 'image[]');
  if (references.length === 0) throw invalid(['body', 'image'], 'Field required', undefined, 'missing');
  const images: InputFile[] = references.map(({ file }, index) => {
    const mediaType = imageType(file.data);
    if (!mediaType) throw invalid(['body', 'image', index], `"${file.filename}" is not a PNG, JPEG or WebP image`);
    return { ...file, mediaType };
  });
  await respond(ctx, services, body, images);
};

async function respond(ctx: Context, services: ServerServices, body: ImageBody, references: InputFile[]): Promise<void> {
  if (body.stream && (body.partial_images ?? 0) > 0) {
    await streamImages(services, callerOf(ctx), body, references, koaSink(ctx));
    return;
  }
  const { model, images, size } = await runGeneration(services, callerOf(ctx), body, references);
  if (body.stream) {
    // Only now: a request that failed before its images is a plain JSON error.
    ctx.type = 'text/event-stream';
    ctx.set('cache-control', 'no-cache');
    const echo = { background: body.background, outputFormat: body.output_format, quality: body.quality, size, inputTokens: countTextTokens(body.prompt) };
    ctx.body = imageEvents(references.length > 0 ? 'image_edit' : 'image_generation', images, echo, Math.floor(services.now() / 1000));
    return;
  }
  ctx.body = encodeImages(images, { model: model.id, output_format: body.output_format, size, quality: body.quality });
}
