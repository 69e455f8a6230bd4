// Reading a JSON request body (co-body's JSON reader): up to `server.json_limit` bytes after
// decompression, in UTF-8, strict JSON, nested at most `maxJsonDepth` levels. Its refusals
// carry their own status (400 aborted, 413 too large, 415 unknown encoding) — except a body
// that is not JSON, a validation failure like any other (422 `json_invalid` with `detail`, as
// the spec's rule and FastAPI have it), and a body whose Content-Encoding does not decode:
// zlib's error has no status and would be a 500, so it is named here as the client's 400.
//
// co-body's JSON reader alone, required by its file: koa-body (which called it the same way)
// and co-body's index also load formidable, qs and a zod schema of their options — 1.7 MB of
// heap in every serving process for bodies no route reads that way (multipart is streamed by
// readMultipart). Which requests are read is koa-body's rule, kept: POST, PUT and PATCH with
// one of the JSON media types below; any other leaves `ctx.request.body` undefined.
import { createRequire } from 'node:module';
import type coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import { maxJsonDepth, pathTooDeep } from '../util/json-depth.js';
import { RequestValidationError } from '../validation/zod-details.js';
import { GatewayError } from '../errors/gateway-error.js';

/** FastAPI's shape: loc ["body", position] when the parser names one, the parser's words in ctx.error. */
function jsonInvalid(error: SyntaxError): RequestValidationError {
  const position = /at position (\d+)/.exec(error.message)?.[1];
  return new RequestValidationError([
    { loc: position === undefined ? ['body'] : ['body', Number(position)], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: error.message } },
  ]);
}

/** JSON.parse's result, as koa-body typed it; the routes validate it with zod before use. */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

declare module 'koa' {
  interface Request {
    /** The JSON body read by jsonBody (undefined on a route that reads none). */
    body?: JsonValue;
  }
}

const readJson = createRequire(import.meta.url)('co-body/lib/json.js') as typeof coBody.json;

/** The media types read as JSON (koa-body's default `jsonTypes`, matched with ctx.is). */
const jsonTypes = ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/reports+json'];

/** The methods whose body is read (koa-body's default `parsedMethods`). */
const parsedMethods = new Set(['POST', 'PUT', 'PATCH']);

/** A read's failure as the client's error: not JSON → 422, an encoding that does not decode → 400; any other as co-body gave it. */
function readError(error: unknown, ctx: Context): unknown {
  if (error instanceof SyntaxError) return jsonInvalid(error);
  if (!(error instanceof Error)) return error;
  const status = (error as { status?: unknown }).status;
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase().slice(0, 40);
  if (typeof status !== 'number' && encoding !== 'identity') {
    return new GatewayError('invalid_content_encoding', `The request body is not valid ${encoding} (Content-Encoding: ${encoding}): ${error.message}`);
  }
  return error;
}

export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    if (parsedMethods.has(ctx.method.toUpperCase()) && ctx.is(jsonTypes)) {
      try {
        ctx.request.body = (await readJson(ctx, { encoding: 'utf-8', limit: limitBytes, strict: true })) as JsonValue;
      } catch (error) {
        throw readError(error, ctx);
      }
      // Once, here, before anything walks the body: validation, the token estimate and the
      // error encoder all recurse, and JSON.parse accepts any depth. A typical chat body takes
      // about 0.2 µs (docs/errors.md).
      const path = pathTooDeep(ctx.request.body);
      if (path) {
        throw new RequestValidationError([
          { loc: ['body', ...path], msg: `Input should be nested at most ${maxJsonDepth} levels deep`, type: 'too_deep', ctx: { max_depth: maxJsonDepth } },
        ]);
      }
    }
    return next();
  };
}
