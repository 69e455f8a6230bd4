// Image generation, edits and upscaling: the request checked against the model's declared
// options and priced (the price endpoint calls the same quote), held, sent upstream, settled
// per image returned, and every image stored as a file and recorded in the image history.
import { imageUnitPrice, imagesPriceUnits } from '../billing/media-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ImageBody, UpscaleFields } from '../dialects/openai-media/images.js';
import { imageType } from '../media-files/inspect.js';
import { aspectSize } from '../media-files/aspect-size.js';
import { inImageFormat } from '../media-files/image-format.js';
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
  /** The size asked of the upstream: the body's `size`, or the one its aspect_ratio and resolution stand for. */
  readonly size?: string;
}

/** Checks the body against the model's declared options and prices it. */
export function quoteImages(services: Pick<ImageServices, 'catalog'>, body: ImageBody): ImageQuote {
  if (body.response_format === 'url') {
    throw invalid(['body', 'response_format'], 'URLs are not supported: images are returned as b64_json only', 'url', 'literal_error');
  }
  const model = resolveMediaModel(services, body.model, ['image']);
  const size = checkImageOptions(model, body);
  if ((body.partial_images ?? 0) > 0 && !model.config.capabilities.partial_images) {
    // Before any hold: previews this route cannot stream would be accepted and never sent.
    throw invalid(['body', 'partial_images'], `${model.id} cannot stream partial images: send partial_images 0 (or leave it out)`, body.partial_images, 'extra_forbidden');
  }
  const options = { size: body.size, quality: body.quality, resolution: body.resolution, aspectRatio: body.aspect_ratio };
  const unitPrice = imageUnitPrice(model.config.pricing, options);
  if (unitPrice === undefined) throw invalid(['body', 'quality'], `${model.id} has no price for these options`, body.quality);
  return { model, unitPrice, totalUnits: imagesPriceUnits(unitPrice, body.n), size };
}

/**
 * Every option the body gives is one the model declares (capabilities), or a 422 naming it:
 * nothing is accepted and ignored. A model that declares no `aspect_ratios` (or
 * `resolutions`) takes none; one that declares no `formats` takes any output_format. Returns
 * the size to ask of the upstream.
 */
function checkImageOptions(model: CatalogModel, body: ImageBody): string | undefined {
  const capabilities = model.config.capabilities;
  const declared: [keyof ImageBody, readonly string[] | undefined, boolean][] = [
    ['size', capabilities.sizes, false],
    ['aspect_ratio', capabilities.aspect_ratios, true],
    ['resolution', capabilities.resolutions, true],
    ['quality', capabilities.qualities, false],
    ['output_format', capabilities.formats, false],
  ];
  for (const [field, allowed, onlyWhenDeclared] of declared) {
    const value = body[field] as string | undefined;
    if (value === undefined) continue;
    if (!allowed && onlyWhenDeclared) throw invalid(['body', field], `${model.id} takes no ${field}: give size instead`, value, 'extra_forbidden');
    if (allowed && !allowed.includes(value)) {
      throw invalid(['body', field], `Input should be ${allowed.map((a) => `'${a}'`).join(', ')} for ${model.id}`, value, 'enum');
    }
  }
  if (body.aspect_ratio === undefined && body.resolution === undefined) return body.size;
  const field = body.aspect_ratio !== undefined ? 'aspect_ratio' : 'resolution';
  if (body.size !== undefined && body.size !== 'auto') {
    throw invalid(['body', field], `give either size or ${field}: both say how large the image is`, body[field]);
  }
  const pixels = aspectSize(body.aspect_ratio, body.resolution);
  if (!pixels) throw invalid(['body', field], `${field} ${JSON.stringify(body[field])} is not a ratio such as "16:9" or a resolution such as "2K"`, body[field]);
  return `${pixels.width}x${pixels.height}`;
}

/** A request checked and quoted, ready for the charge path: what a plain and a streamed call share. */
export interface PreparedImages {
  readonly model: CatalogModel;
  readonly unitPrice: string;
  readonly size?: string;
  readonly request: ImageGenerationRequest;
  /** Reference images came: an edit. */
  readonly edit: boolean;
}

/** Quote, reference images checked against the model, the upstream request built: all before any hold. */
export function prepareImages(services: ImageServices, caller: MediaCaller, body: ImageBody, references: readonly InputFile[]): PreparedImages {
  const { model, unitPrice, size } = quoteImages(services, body);
  if (references.length > 0) {
    const { references: accepts, max_references: maxReferences } = model.config.capabilities;
    if (!accepts) throw invalid(['body', 'model'], `${model.id} does not take reference images`, body.model);
    if (maxReferences !== undefined && references.length > maxReferences) {
      throw invalid(['body', 'image'], `${model.id} takes at most ${maxReferences} reference images`, references.length, 'too_long');
    }
  }
  caller.log.model = model.id;
  const request: ImageGenerationRequest = {
    prompt: body.prompt,
    n: body.n,
    size,
    aspectRatio: body.aspect_ratio,
    resolution: body.resolution,
    quality: body.quality,
    background: body.background,
    outputFormat: body.output_format,
    user: body.user,
    images: [...references],
  };
  return { model, unitPrice, size, request, edit: references.length > 0 };
}

/** The charge of n images: held for all, charged per image returned (at most n), with its usage record's units. */
export function imagesCharge(prepared: PreparedImages, n: number) {
  const { model, unitPrice, edit } = prepared;
  return {
    holdUnits: imagesPriceUnits(unitPrice, n),
    actualUnits: (count: number) => imagesPriceUnits(unitPrice, Math.min(count, n)),
    description: `image ${edit ? 'edit' : 'generation'} ${model.id}`,
    units: (count: number) => ({ endpoint: edit ? 'image-edits' : 'images', images: Math.min(count, n) }),
  };
}

/** A generation, or an edit when reference images come with it. */
export async function generateImages(services: ImageServices, caller: MediaCaller, body: ImageBody, references: readonly InputFile[]): Promise<{ model: CatalogModel; images: GeneratedImage[]; size?: string }> {
  const prepared = prepareImages(services, caller, body, references);
  const { model, unitPrice, size, request, edit } = prepared;
  const charge = imagesCharge(prepared, body.n);
  let stored: StoredFile[] = [];
  let answered: GeneratedImage[] = [];
  await chargedMediaCall<ImageGenerationRequest, GeneratedImage[]>(services, {
    caller,
    model,
    operation: edit ? 'editImages' : 'generateImages',
    request,
    holdUnits: charge.holdUnits,
    // Charged per image actually returned.
    actualUnits: (result) => charge.actualUnits(result.length),
    description: charge.description,
    units: (result) => charge.units(result.length),
    keep: async (result) => {
      // Converted before they are stored: what is kept and answered is in the asked format.
      answered = await Promise.all(result.slice(0, body.n).map((image) => inImageFormat(image, body.output_format)));
      stored = await storeImages(services, caller, answered);
    },
  });
  await recordImages(services, caller, { model: model.id, prompt: body.prompt, unitPrice }, stored);
  return { model, images: answered, size };
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
export async function storeImages(services: ImageServices, caller: MediaCaller, images: readonly GeneratedImage[]): Promise<StoredFile[]> {
  const files: StoredFile[] = [];
  for (const image of images) files.push(await services.files.save(caller.apiKey.accountId, 'image', image.mediaType, image.data));
  return files;
}

/** Every stored image becomes a line of the image history. */
export async function recordImages(services: ImageServices, caller: MediaCaller, context: { model: string; prompt: string | null; unitPrice: string }, files: readonly StoredFile[]): Promise<void> {
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
