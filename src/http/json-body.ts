// Reading a JSON request body (koa-body over co-body): up to `server.json_limit` bytes after
// decompression, in UTF-8, strict JSON, nested at most `maxJsonDepth` levels. Its refusals
// carry their own status (400 aborted, 413 too large, 415 unknown encoding) — except a body
// that is not JSON, a validation failure like any other (422 `json_invalid` with `detail`, as
// the spec's rule and FastAPI have it), and a body whose Content-Encoding does not decode:
// zlib's error has no status and would be a 500, so it is named here as the client's 400.
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
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

export function jsonBody(limitBytes: number): Middleware {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: limitBytes,
    jsonStrict: true,
    onError(error, ctx) {
      if (error instanceof SyntaxError) throw jsonInvalid(error);
      const status = (error as { status?: unknown }).status;
      const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase().slice(0, 40);
      if (typeof status !== 'number' && encoding !== 'identity') {
        throw new GatewayError('invalid_content_encoding', `The request body is not valid ${encoding} (Content-Encoding: ${encoding}): ${error.message}`);
      }
      throw error;
    },
  });
  return (ctx, next) =>
    parse(ctx, () => {
      // Once, here, before anything walks the body: validation, the token estimate and the
      // error encoder all recurse, and JSON.parse accepts any depth. A typical chat body takes
      // about 0.2 µs (docs/errors.md).
      const path = pathTooDeep(ctx.request.body);
      if (path) {
        throw new RequestValidationError([
          { loc: ['body', ...path], msg: `Input should be nested at most ${maxJsonDepth} levels deep`, type: 'too_deep', ctx: { max_depth: maxJsonDepth } },
        ]);
      }
      return next();
    });
}
