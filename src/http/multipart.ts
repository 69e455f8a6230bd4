// Multipart uploads (image references, audio to transcribe), read with busboy while they
// stream: files are kept in memory up to their cap and never touch the disk; past the cap the
// rest of the upload is drained and discarded (memory stays flat) and the request is a 413.
import busboy from 'busboy';
import type { InputFile } from '../model/media.js';
import { ApiError } from './errors.js';
import type { Context } from './state.js';

export interface MultipartForm {
  readonly fields: Record<string, string>;
  /** Files by field name, in upload order ("image[]" and "image" are both kept under their own name). */
  readonly files: { readonly field: string; readonly file: InputFile }[];
}

export interface MultipartLimits {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

export function readMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartForm> {
  if (!ctx.is('multipart/form-data')) {
    return Promise.reject(new ApiError(415, 'Send this request as multipart/form-data.', { code: 'unsupported_media_type' }));
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: { field: string; file: InputFile }[] = [];
    let failure: ApiError | undefined;
    const fail = (error: ApiError) => {
      if (failure) return;
      failure = error;
      // Stop parsing, discard the rest of the upload without keeping it, then answer.
      ctx.req.unpipe(parser);
      ctx.req.resume();
      ctx.req.once('end', () => reject(error));
      ctx.req.once('error', () => reject(error));
      ctx.set('connection', 'close');
    };
    const parser = busboy({ headers: ctx.req.headers, limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 100, fieldSize: 1024 * 1024 } });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!failure) chunks.push(chunk);
      });
      stream.on('limit', () => {
        chunks.length = 0;
        fail(new ApiError(413, `The file "${info.filename}" is larger than ${megabytes(limits.maxFileBytes)}.`, { code: 'file_too_large', param: field }));
      });
      stream.on('close', () => {
        if (failure) return;
        files.push({ field, file: { data: Buffer.concat(chunks), mediaType: info.mimeType, filename: info.filename ?? field } });
      });
    });
    parser.on('filesLimit', () => fail(new ApiError(413, `At most ${limits.maxFiles} files can be uploaded at once.`, { code: 'too_many_files' })));
    parser.on('error', (error: Error) => {
      if (!failure) reject(new ApiError(400, `Malformed multipart body: ${error.message}`, { code: 'invalid_request' }));
    });
    parser.on('close', () => {
      if (!failure) resolve({ fields, files });
    });
    ctx.req.pipe(parser);
  });
}
