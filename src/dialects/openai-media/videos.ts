// The body of POST /v1/videos and /v1/videos/price (JSON, or multipart as openai-node always
// sends), and the reference images it names: an upload, file ids, or base64 data: URLs.
import { z } from 'zod';
import type { InputFile } from '../../model/media.js';
import { invalid } from '../../validation/zod-details.js';
import { isDataUrl, parseDataUrl } from '../shared/data-url.js';
import { jobControlFields } from './job-control.js';

/** A reference image may be this large (OpenAI's own limit for input_reference). */
export const maxVideoReferenceBytes = 25 * 1024 * 1024;

export const videoFields = z.object({
  // The spec's bounds, 1–30000 characters; the price endpoint reads the same fields.
  prompt: z.string().min(1).max(30_000),
  model: z.string().min(1).optional(),
  seconds: z.union([z.string().regex(/^\d{1,3}$/, 'expected whole seconds such as "4"'), z.number().int().positive().max(600)]).optional(),
  size: z.string().regex(/^\d{2,5}x\d{2,5}$/, 'expected a size "<width>x<height>" such as "1280x720"').optional(),
  seed: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  // The spec's shapes: an uploaded file (multipart), {file_id} or {image_url} (a base64 data:
  // URL; remote URLs are refused, the gateway fetches nothing), or the same as a plain string;
  // and `input_references`, a list of such strings. Each one is priced (per_reference).
  input_reference: z
    .union([z.string().min(1), z.object({ file_id: z.union([z.string().min(1), z.number().int().positive()]).optional(), image_url: z.string().min(1).optional() }).strict()])
    .optional(),
  input_references: z.array(z.string().min(1)).max(16).optional(),
  ...jobControlFields,
});
export type VideoFields = z.output<typeof videoFields>;

/** Multipart scalars are strings: the same schema after turning "true"/"false" into booleans. */
export function formToFields(form: Record<string, string>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...form };
  if (form.wait !== undefined) fields.wait = form.wait === 'true' || form.wait === '1';
  if (form.wait_timeout !== undefined) fields.wait_timeout = Number(form.wait_timeout);
  if (form['input_reference[file_id]'] !== undefined || form['input_reference[image_url]'] !== undefined) {
    fields.input_reference = { file_id: form['input_reference[file_id]'], image_url: form['input_reference[image_url]'] };
    delete fields['input_reference[file_id]'];
    delete fields['input_reference[image_url]'];
  }
  return fields;
}

/** A reference image as the request names it: a stored file of the account, or inline bytes. */
export type Reference = { readonly loc: (string | number)[] } & ({ readonly fileId: number } | { readonly inline: InputFile });

/** A reference string: a file id ("123", "file-123") or a base64 data: URL; anything else is refused by field. */
function referenceOf(value: string | number, loc: (string | number)[]): Reference {
  const text = String(value).trim();
  const id = /^(?:file[-_])?(\d{1,15})$/.exec(text)?.[1];
  if (id !== undefined && Number(id) > 0) return { loc, fileId: Number(id) };
  if (isDataUrl(text)) {
    const parts = parseDataUrl(text);
    if (!parts) throw invalid(loc, 'a data: URL must be base64 ("data:image/png;base64,…")', text.slice(0, 64));
    return { loc, inline: { data: Buffer.from(parts.data, 'base64'), mediaType: parts.mediaType, filename: 'reference' } };
  }
  if (/^https?:\/\//i.test(text)) throw invalid(loc, 'image URLs are not fetched by this gateway: upload the image, or give a file id or a base64 data: URL', text);
  throw invalid(loc, 'expected a file id or a base64 data: URL of an image', text.slice(0, 64));
}

/** Every reference image of the request, in order: the upload, input_reference, input_references. */
export function referencesOf(fields: VideoFields, upload: InputFile | undefined): Reference[] {
  const references: Reference[] = [];
  if (upload) references.push({ loc: ['body', 'input_reference'], inline: upload });
  const single = fields.input_reference;
  if (typeof single === 'string') references.push(referenceOf(single, ['body', 'input_reference']));
  else if (single?.file_id !== undefined) references.push(referenceOf(single.file_id, ['body', 'input_reference', 'file_id']));
  else if (single?.image_url !== undefined) references.push(referenceOf(single.image_url, ['body', 'input_reference', 'image_url']));
  fields.input_references?.forEach((value, index) => references.push(referenceOf(value, ['body', 'input_references', index])));
  return references;
}
