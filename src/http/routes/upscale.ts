// POST /v1/images/upscale (multipart): `image`, `scale` 2 or 4 (default 4). The input is
// resized first so the output stays within 4K (see media/upscale-plan.ts), then upscaled by
// the upscaler vendor; charged per image, returned as b64_json and recorded in the history.
import { z } from 'zod';
import { imageUnitPrice, imagesPriceUnits } from '../../billing/media-pricing.js';
import { imageType } from '../../media/inspect.js';
import { planUpscale } from '../../media/upscale-plan.js';
import type { GeneratedImage, ImageUpscaleRequest } from '../../model/media.js';
import { chargedMediaCall, resolveMediaModel } from '../../pipeline/media.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import type { Handler } from '../state.js';
import { maxReferenceBytes, recordImages } from './images.js';

const upscaleFields = z.object({
  model: z.string().min(1).optional(),
  scale: z.coerce.number().int().refine((scale) => scale === 2 || scale === 4, 'scale must be 2 or 4').default(4),
});

export const upscaleImage: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxReferenceBytes, maxFiles: 1 });
  const fields = validate(upscaleFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'image');
  if (!upload) throw invalid(['body', 'image'], 'Field required', undefined, 'missing');
  // Without a model, the first enabled image model made for upscaling.
  const model = fields.model
    ? resolveMediaModel(services, fields.model, ['image'])
    : (services.catalog.enabledModels.find((m) => m.type === 'image' && m.id.includes('upscale')) ?? resolveMediaModel(services, undefined, ['image']));
  ctx.state.model = model.id;
  if (!imageType(upload.file.data)) throw invalid(['body', 'image'], `"${upload.file.filename}" is not a PNG, JPEG or WebP image`);
  // sharp (libvips) is loaded on the first upscale: ~20 MB a gateway that never upscales does not pay.
  const { default: sharp } = await import('sharp');
  let metadata;
  try {
    metadata = await sharp(upload.file.data).metadata();
  } catch {
    throw invalid(['body', 'image'], `"${upload.file.filename}" cannot be decoded`);
  }
  if (!metadata.width || !metadata.height) throw invalid(['body', 'image'], `"${upload.file.filename}" has no dimensions`);
  const plan = planUpscale(metadata.width, metadata.height, fields.scale);
  const input =
    plan.inputWidth === metadata.width && plan.inputHeight === metadata.height
      ? upload.file
      : { ...upload.file, mediaType: 'image/png', data: await sharp(upload.file.data).resize(plan.inputWidth, plan.inputHeight, { fit: 'fill' }).png().toBuffer() };
  const unitPrice = imageUnitPrice(model.config.pricing, {});
  if (unitPrice === undefined) throw invalid(['body', 'model'], `${model.id} has no price per image`, model.id);
  const apiKey = ctx.state.apiKey!;
  const { result, chargedUnits } = await chargedMediaCall<ImageUpscaleRequest, GeneratedImage>(services, {
    apiKey,
    requestId: ctx.state.requestId,
    model,
    operation: 'upscaleImage',
    request: { image: input, scale: fields.scale },
    holdUnits: imagesPriceUnits(unitPrice, 1),
    actualUnits: () => imagesPriceUnits(unitPrice, 1),
    description: `image upscale ${model.id} ×${fields.scale}`,
  });
  ctx.state.chargedUnits = chargedUnits;
  await recordImages(services, { accountId: apiKey.accountId, keyId: apiKey.id, requestId: ctx.state.requestId, model: model.id, prompt: null, unitPrice }, [result]);
  ctx.body = {
    created: Math.floor(Date.now() / 1000),
    data: [{ b64_json: Buffer.from(result.data).toString('base64') }],
    model: model.id,
    size: `${plan.outputWidth}x${plan.outputHeight}`,
  };
};
