// Liveness, readiness and metrics: outside /v1, no key, not rate limited (/metrics has an access
// rule of its own: src/http/metrics-access.ts).
import type { Handler } from '../state.js';

export const healthz: Handler = (ctx) => {
  ctx.body = { status: 'ok' };
};

/** Ready when the database answers, Redis (if configured) answers within cache.timeout, and the blob store (storage.blobs) can be used. */
export const readyz: Handler = async (ctx, services) => {
  try {
    await services.db.raw('select 1');
  } catch (error) {
    ctx.status = 503;
    ctx.body = { status: 'unavailable', reason: `database unreachable: ${(error as Error).message}` };
    return;
  }
  const { redis } = services;
  if (redis) {
    try {
      await redis.ping();
    } catch (error) {
      ctx.status = 503;
      const cause = (error as Error).cause;
      const why = cause instanceof Error ? `: ${cause.message}` : '';
      ctx.body = {
        status: 'unavailable',
        reason: `cache unreachable: Redis at ${redis.displayUrl}${why} (cache.on_unavailable=${services.config.cache.onUnavailable})`,
      };
      return;
    }
  }
  // The blob store: every file route and job result needs it (an S3 store: its bucket answers within 3 s).
  try {
    await services.blobs.check();
  } catch (error) {
    ctx.status = 503;
    ctx.body = { status: 'unavailable', reason: `file storage unavailable: ${(error as Error).message}` };
    return;
  }
  ctx.body = { status: 'ready' };
};

/** Prometheus text, to whom src/http/metrics-access.ts admits. */
export const metrics: Handler = async (ctx, services) => {
  ctx.metricsAccess.admit(ctx.req);
  ctx.type = services.metrics.registry.contentType;
  ctx.body = await services.metrics.registry.metrics();
};
