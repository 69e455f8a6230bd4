// POST /v1/images/upscale (multipart): `image`, `scale` 2 or 4 (default 4). The resize, the
// charge and the image history are the pipeline's (pipeline/images.ts upscaleImage).
import { encodeUpscaledImage, maxReferenceBytes, upscaleFields } from '../../dialects/openai-media/images.js';
import { upscaleImage as runUpscale } from '../../pipeline/images.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { readMultipart } from '../multipart.js';
import { callerOf, type Handler } from '../state.js';

export const upscaleImage: Handler = async (ctx, services) => {
  const form = await readMultipart(ctx, { maxFileBytes: maxReferenceBytes, maxFiles: 1 });
  const fields = validate(upscaleFields, form.fields, 'body');
  const upload = form.files.find((entry) => entry.field === 'image');
  if (!upload) throw invalid(['body', 'image'], 'Field required', undefined, 'missing');
  const { model, image, size } = await runUpscale(services, callerOf(ctx), fields, upload.file);
  ctx.body = encodeUpscaledImage(image, model.id, size);
};
