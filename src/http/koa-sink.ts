// The pipeline's ResponseSink over a Koa context: JSON through Koa as usual; streams (SSE, audio) written
// straight to the socket (Koa steps aside with ctx.respond = false) so every event leaves
// the process as soon as it is produced.
import type { ResponseSink } from '../pipeline/sink.js';
import type { Context } from './state.js';

export function koaSink(ctx: Context): ResponseSink {
  const { res } = ctx;
  return {
    setHeader(name, value) {
      ctx.set(name, value);
    },
    startStream(contentType = 'text/event-stream; charset=utf-8') {
      ctx.status = 200;
      ctx.respond = false;
      res.setHeader('content-type', contentType);
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('connection', 'keep-alive');
      res.setHeader('x-accel-buffering', 'no'); // tell nginx-like proxies not to buffer either
      // The head leaves with the first event, written in the same tick (one send, not two).
      res.writeHead(200);
    },
    write(data) {
      if (!res.writableEnded && !res.destroyed) res.write(data);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    abort() {
      res.destroy();
    },
    sendJson(body) {
      ctx.status = 200;
      ctx.body = body;
    },
    onClose(listener) {
      res.once('close', () => {
        if (!res.writableFinished) listener();
      });
    },
  };
}
