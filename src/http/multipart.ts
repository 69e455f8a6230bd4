// Multipart uploads (image references, audio to transcribe, videos), read with busboy while
// they stream: files are kept in memory up to their cap and never touch the disk; past the cap
// the rest of the upload is drained and discarded (memory stays flat) and the request is a 413.
// Whatever the body does — ends mid-part, has no boundary, is compressed, or the client hangs
// up half-way — the request ends with a GatewayError and nothing of it is kept: every stream busboy
// hands out has an 'error' listener, since an unhandled one would end the whole process.
import { finished } from 'node:stream';
import busboy from 'busboy';
import type { InputFile } from '../model/media.js';
import { GatewayError } from '../errors/gateway-error.js';
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

const maxFields = 100;
const maxFieldBytes = 1024 * 1024;

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

const malformed = (problem: string) => new GatewayError('malformed_multipart', `Malformed multipart body: ${problem}`);

export function readMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartForm> {
  if (!ctx.is('multipart/form-data')) {
    return Promise.reject(new GatewayError('unsupported_media_type', 'Send this request as multipart/form-data.'));
  }
  // No SDK compresses uploads; decompressing one would only add a way to inflate the caps.
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    return Promise.reject(
      new GatewayError('unsupported_content_encoding', `Multipart uploads must not be compressed (Content-Encoding: ${encoding.slice(0, 40)}); send the form uncompressed.`),
    );
  }
  let parser: busboy.Busboy;
  try {
    // Filenames as UTF-8 (what browsers and the SDKs send raw in the part header), not busboy's
    // default latin1, which stored `тест ✓.mp4` as mojibake.
    // busboy reports 'limit' when a file reaches fileSize bytes, so a file of exactly the cap
    // was refused as larger than it: the cap + 1 makes 'limit' mean "more than the cap".
    parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fileSize: limits.maxFileBytes + 1, files: limits.maxFiles, fields: maxFields, fieldSize: maxFieldBytes } });
  } catch (error) {
    // busboy throws from its constructor for a content-type it cannot split (no boundary).
    const message = (error as Error).message;
    return Promise.reject(malformed(/boundary/i.test(message) ? 'the Content-Type has no boundary parameter.' : message));
  }
  const request = ctx.req;
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: { field: string; file: InputFile }[] = [];
    let failure: GatewayError | undefined;
    const fail = (error: GatewayError) => {
      if (failure) return;
      failure = error;
      // Stop feeding the parser and drop what was kept; discard the rest of the upload without
      // keeping it, then answer (at once when the body has already ended or the client has gone).
      // The parser is left to the garbage collector, not destroyed: this may run inside one of its
      // callbacks, and busboy does not survive being destroyed there.
      files.length = 0;
      request.unpipe(parser);
      request.resume();
      finished(request, () => reject(error));
      ctx.set('connection', 'close');
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new GatewayError('field_too_large', `The field "${name.slice(0, 100)}" is longer than ${megabytes(maxFieldBytes)}.`, { param: name.slice(0, 100) }));
      else fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      // A body that ends inside this file destroys the stream with busboy's error.
      stream.on('error', (error: Error) => fail(malformed(error.message)));
      stream.on('data', (chunk: Buffer) => {
        if (!failure) chunks.push(chunk);
      });
      stream.on('limit', () => {
        chunks.length = 0;
        fail(new GatewayError('file_too_large', `The file "${info.filename}" is larger than ${megabytes(limits.maxFileBytes)}.`, { param: field }));
      });
      stream.on('end', () => {
        if (!failure) files.push({ field, file: { data: Buffer.concat(chunks), mediaType: info.mimeType, filename: info.filename ?? field } });
      });
    });
    parser.on('filesLimit', () => fail(new GatewayError('too_many_files', `At most ${limits.maxFiles} ${limits.maxFiles === 1 ? 'file' : 'files'} can be uploaded at once.`)));
    parser.on('fieldsLimit', () => fail(new GatewayError('too_many_fields', `At most ${maxFields} form fields can be sent at once.`)));
    parser.on('error', (error: Error) => fail(malformed(error.message)));
    parser.on('close', () => {
      if (!failure) resolve({ fields, files });
    });
    // The client hanging up before the body ended: the pipe does not tell busboy, this does.
    finished(request, (error) => {
      if (error) fail(new GatewayError('upload_interrupted', 'The client closed the connection before the upload ended.'));
    });
    request.pipe(parser);
  });
}
