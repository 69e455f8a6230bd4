// POST /v1/images/generations and POST /v1/images/price: the same body, validated against the
// model's declared options, priced by the same function; generation holds, calls the
// upstream, settles, stores each image as a file and records it in the image history.
import { z } from 'zod';
import { formatRub } from '../../billing/money.js';
import { imageUnitPrice, imagesPriceUnits } from '../../billing/media-pricing.js';
import { convertDecimal } from '../../billing/pricing.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import { imageType } from '../../media/inspect.js';
import type { GeneratedImage, ImageGenerationRequest, InputFile } from '../../model/media.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import type { Context, Handler } from '../state.js';

const imageBody = z.object({
  prompt: z.string().min(1).max(32_000),
  model: z.string().min(1).optional(),
  n: z.number().int().min(1).max(4).default(1),
  size: z.string().min(1).optional(),
  aspect_ratio: z.string().min(1).optional(),
  resolution: z.string().min(1).optional(),
  quality: z.string().min(1).optional(),
  background: z.enum(['transparent', 'opaque', 'auto']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).default('png'),
  response_format: z.enum(['b64_json', 'url']).optional(),
  user: z.string().optional(),
});
type ImageBody = z.output<typeof imageBody>;

// The same fields as a multipart form: every scalar arrives as a string.
const editBody = imageBody.extend({ n: z.coerce.number().int().min(1).max(4).default(1) });
export const maxReferenceBytes = 25 * 1024 * 1024;

/** Checks the body against the model's declared options and prices it. */
function quoteImages(services: ServerServices, body: ImageBody): { model: CatalogModel; unitPrice: string; totalUnits: bigint } {
  if (body.response_format === 'url') {
    throw invalid(['body', 'response_format'], 'URLs are not supported: images are returned as b64_json only', 'url', 'literal_error');
  }
  const model = resolveMediaModel(services, body.model, ['image']);
  const capabilities = model.config.capabilities;
  const declared: [keyof ImageBody, readonly string[] | undefined][] = [
    ['size', capabilities.sizes],
    ['aspect_ratio', capabilities.aspect_ratios],
    ['resolution', capabilities.resolutions],
    ['quality', capabilities.qualities],
  ];
  for (const [field, allowed] of declared) {
    const value = body[field] as string | undefined;
    if (value !== undefined && allowed && !allowed.includes(value)) {
      throw invalid(['body', field], `Input should be ${allowed.map((a) => `'${a}'`).join(', ')} for ${model.id}`, value, 'enum');
    }
  }
  const options = { size: body.size, quality: body.quality, resolution: body.resolution, aspectRatio: body.aspect_ratio };
  const unitPrice = imageUnitPrice(model.config.pricing, options);
  if (unitPrice === undefined) throw invalid(['body', 'quality'], `${model.id} has no price for these options`, body.quality);
  return { model, unitPrice, totalUnits: imagesPriceUnits(unitPrice, body.n) };
}

export const priceImages: Handler = (ctx, services) => {
  const body = validate(imageBody, ctx.request.body, 'body');
  const { model, unitPrice, totalUnits } = quoteImages(services, body);
  ctx.state.model = model.id;
  const priceRub = formatRub(totalUnits);
  ctx.body = {
    object: 'image.price',
    model: model.id,
    n: body.n,
    unit_price_rub: unitPrice,
    price_rub: priceRub,
    price_usd: convertDecimal(priceRub, services.config.currency.usdRub),
  };
};

export const generateImages: Handler = (ctx, services) => runImages(ctx, services, validate(imageBody, ctx.request.body, 'body'), []);

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
  await runImages(ctx, services, body, images);
};

async function runImages(ctx: Context, services: ServerServices, body: ImageBody, references: InputFile[]): Promise<void> {
  const { model, unitPrice } = quoteImages(services, body);
  if (references.length > 0) {
    const { references: accepts, max_references: maxReferences } = model.config.capabilities;
    if (!accepts) throw invalid(['body', 'model'], `${model.id} does not take reference images`, body.model);
    if (maxReferences !== undefined && references.length > maxReferences) {
      throw invalid(['body', 'image'], `${model.id} takes at most ${maxReferences} reference images`, references.length, 'too_long');
    }
  }
  ctx.state.model = model.id;
  const apiKey = ctx.state.apiKey!;
  const request: ImageGenerationRequest = {
    prompt: body.prompt,
    n: body.n,
    size: body.size,
    aspectRatio: body.aspect_ratio,
    resolution: body.resolution,
    quality: body.quality,
    background: body.background,
    outputFormat: body.output_format,
    user: body.user,
    images: references,
  };
  const { result, chargedUnits } = await chargedMediaCall<ImageGenerationRequest, GeneratedImage[]>(services, {
    apiKey,
    requestId: ctx.state.requestId,
    model,
    operation: references.length > 0 ? 'editImages' : 'generateImages',
    request,
    holdUnits: imagesPriceUnits(unitPrice, body.n),
    // Charged per image actually returned.
    actualUnits: (images) => imagesPriceUnits(unitPrice, Math.min(images.length, body.n)),
    description: `image ${references.length > 0 ? 'edit' : 'generation'} ${model.id}`,
  });
  ctx.state.chargedUnits = chargedUnits;
  await recordImages(services, { accountId: apiKey.accountId, keyId: apiKey.id, requestId: ctx.state.requestId, model: model.id, prompt: body.prompt, unitPrice }, result);
  ctx.body = {
    created: Math.floor(Date.now() / 1000),
    data: result.map((image) => ({ b64_json: Buffer.from(image.data).toString('base64'), revised_prompt: image.revisedPrompt ?? null })),
    model: model.id,
    output_format: body.output_format,
    ...(body.size ? { size: body.size } : {}),
    ...(body.quality ? { quality: body.quality } : {}),
  };
}

/** Every image becomes a stored file and a line of the image history. */
export async function recordImages(
  services: ServerServices,
  context: { accountId: string; keyId: string; requestId: string; model: string; prompt: string | null; unitPrice: string },
  images: readonly GeneratedImage[],
): Promise<void> {
  const records = [];
  for (const image of images) {
    const file = await services.files.save(context.accountId, 'image', image.mediaType, image.data);
    records.push({
      accountId: context.accountId,
      keyId: context.keyId,
      type: 'image' as const,
      model: context.model,
      prompt: context.prompt,
      chargedUnits: imagesPriceUnits(context.unitPrice, 1),
      fileIds: [file.id],
      requestId: context.requestId,
    });
  }
  await services.generations.record(records);
}

