// Image generation, edits and upscaling: the request checked against the model's declared
// options and priced (the price endpoint calls the same quote), held, sent upstream, settled
// per image returned, and every image stored as a file and recorded in the image history.
import { imageUnitPrice, imagesPriceUnits } from '../billing/media-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ImageBody, UpscaleFields } from '../dialects/openai-media/images.js';
import { imageType } from '../media-files/inspect.js';
import { planUpscale } from '../media-files/upscale-plan.js';
import type { GeneratedImage, ImageGenerationRequest, ImageUpscaleRequest, InputFile } from '../model/media.js';
import type { Files } from '../storage/files.js';
import type { Generations } from '../storage/generations.js';
import type { StoredFile } from '../storage/files.js';
import { invalid } from '../validation/zod-details.js';
import { chargedMediaCall, type MediaCaller, resolveMediaModel, type MediaServices } from './media.js';

/** What the image operations use: the media charge path, and the files and history they keep. */
export interface ImageServices extends MediaServices {
  readonly files: Files;
  readonly generations: Generations;
}

export interface ImageQuote {
  readonly model: CatalogModel;
  readonly unitPrice: string;
  readonly totalUnits: bigint;
}

/** Checks the body against the model's declared options and prices it. */
export function quoteImages(services: ImageServices, body: ImageBody): ImageQuote {
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

/** A generation, or an edit when reference images come with it. */
export async function generateImages(services: ImageServices, caller: MediaCaller, body: ImageBody, references: readonly InputFile[]): Promise<{ model: CatalogModel; images: GeneratedImage[] }> {
  const { model, unitPrice } = quoteImages(services, body);
  if (references.length > 0) {
    const { references: accepts, max_references: maxReferences } = model.config.capabilities;
    if (!accepts) throw invalid(['body', 'model'], `${model.id} does not take reference images`, body.model);
    if (maxReferences !== undefined && references.length > maxReferences) {
      throw invalid(['body', 'image'], `${model.id} takes at most ${maxReferences} reference images`, references.length, 'too_long');
    }
  }
  caller.log.model = model.id;
  let stored: StoredFile[] = [];
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
    images: [...references],
  };
  const images = await chargedMediaCall<ImageGenerationRequest, GeneratedImage[]>(services, {
    caller,
    model,
    operation: references.length > 0 ? 'editImages' : 'generateImages',
    request,
    holdUnits: imagesPriceUnits(unitPrice, body.n),
    // Charged per image actually returned.
    actualUnits: (result) => imagesPriceUnits(unitPrice, Math.min(result.length, body.n)),
    description: `image ${references.length > 0 ? 'edit' : 'generation'} ${model.id}`,
    units: (result) => ({ endpoint: references.length > 0 ? 'image-edits' : 'images', images: Math.min(result.length, body.n) }),
    keep: async (result) => {
      stored = await storeImages(services, caller, result);
    },
  });
  await recordImages(services, caller, { model: model.id, prompt: body.prompt, unitPrice }, stored);
  return { model, images };
}

/**
 * An upscale: the input is resized first so the output stays within 4K (media-files/upscale-plan.ts),
 * then upscaled by the route's vendor; charged per image.
 */
export async function upscaleImage(services: ImageServices, caller: MediaCaller, fields: UpscaleFields, upload: InputFile): Promise<{ model: CatalogModel; image: GeneratedImage; size: string }> {
  // Without a model, the first enabled image model made for upscaling.
  const model = fields.model
    ? resolveMediaModel(services, fields.model, ['image'])
    : (services.catalog.enabledModels.find((m) => m.type === 'image' && m.id.includes('upscale')) ?? resolveMediaModel(services, undefined, ['image']));
  caller.log.model = model.id;
  if (!imageType(upload.data)) throw invalid(['body', 'image'], `"${upload.filename}" is not a PNG, JPEG or WebP image`);
  // sharp (libvips) is loaded on the first upscale: ~20 MB a gateway that never upscales does not pay.
  const { default: sharp } = await import('sharp');
  let metadata;
  try {
    metadata = await sharp(upload.data).metadata();
  } catch {
    throw invalid(['body', 'image'], `"${upload.filename}" cannot be decoded`);
  }
  if (!metadata.width || !metadata.height) throw invalid(['body', 'image'], `"${upload.filename}" has no dimensions`);
  const plan = planUpscale(metadata.width, metadata.height, fields.scale);
  const input =
    plan.inputWidth === metadata.width && plan.inputHeight === metadata.height
      ? upload
      : { ...upload, mediaType: 'image/png', data: await sharp(upload.data).resize(plan.inputWidth, plan.inputHeight, { fit: 'fill' }).png().toBuffer() };
  const unitPrice = imageUnitPrice(model.config.pricing, {});
  if (unitPrice === undefined) throw invalid(['body', 'model'], `${model.id} has no price per image`, model.id);
  let stored: StoredFile[] = [];
  const image = await chargedMediaCall<ImageUpscaleRequest, GeneratedImage>(services, {
    caller,
    model,
    operation: 'upscaleImage',
    request: { image: input, scale: fields.scale },
    holdUnits: imagesPriceUnits(unitPrice, 1),
    actualUnits: () => imagesPriceUnits(unitPrice, 1),
    description: `image upscale ${model.id} ×${fields.scale}`,
    units: () => ({ endpoint: 'image-upscale', images: 1 }),
    keep: async (result) => {
      stored = await storeImages(services, caller, [result]);
    },
  });
  await recordImages(services, caller, { model: model.id, prompt: null, unitPrice }, stored);
  return { model, image, size: `${plan.outputWidth}x${plan.outputHeight}` };
}

/**
 * Every image becomes a stored file, before the charge is settled (chargedMediaCall's `keep`):
 * a blob store that cannot take them fails the request with its hold released.
 */
async function storeImages(services: ImageServices, caller: MediaCaller, images: readonly GeneratedImage[]): Promise<StoredFile[]> {
  const files: StoredFile[] = [];
  for (const image of images) files.push(await services.files.save(caller.apiKey.accountId, 'image', image.mediaType, image.data));
  return files;
}

/** Every stored image becomes a line of the image history. */
async function recordImages(services: ImageServices, caller: MediaCaller, context: { model: string; prompt: string | null; unitPrice: string }, files: readonly StoredFile[]): Promise<void> {
  const { apiKey, requestId } = caller;
  const records = files.map((file) => ({
    accountId: apiKey.accountId,
    keyId: apiKey.id,
    type: 'image' as const,
    model: context.model,
    prompt: context.prompt,
    chargedUnits: imagesPriceUnits(context.unitPrice, 1),
    fileIds: [file.id],
    requestId,
  }));
  await services.generations.record(records);
}
