// Liveness, readiness and metrics: outside /v1, no key, not rate limited (/metrics has an access
// rule of its own: src/http/metrics-access.ts).
import type { Handler } from '../state.js';

export const healthz: Handler = (ctx) => {
  ctx.body = { status: 'ok' };
};

/**
 * Ready when the database answers, Redis (if configured) answers within cache.timeout, and the
 * blob store (storage.blobs) can be used. A load balancer takes an instance out on a 503, so
 * only what stops this instance from serving is one: the database, the blob store, and Redis
 * under `cache.on_unavailable: closed` (keyed requests are refused then). Under `open` a Redis
 * outage is answered 200 `degraded`, naming it: every instance serves on with its own rate
 * limiter, and a 503 from all of them at once would turn a harmless outage into a full one.
 */
export const readyz: Handler = async (ctx, services) => {
  const unavailable = (dependency: string, reason: string) => {
    ctx.status = 503;
    ctx.body = { status: 'unavailable', dependency, reason };
  };
  try {
    await services.db.raw('select 1');
  } catch (error) {
    return unavailable('database', `database unreachable: ${(error as Error).message}`);
  }
  let degraded: { dependency: string; reason: string } | undefined;
  const { redis } = services;
  if (redis) {
    try {
      await redis.ping();
    } catch (error) {
      const cause = (error as Error).cause;
      const why = cause instanceof Error ? `: ${cause.message}` : '';
      const policy = services.config.cache.onUnavailable;
      const reason = `cache unreachable: Redis at ${redis.displayUrl}${why} (cache.on_unavailable=${policy})`;
      if (policy === 'closed') return unavailable('cache', reason);
      degraded = { dependency: 'cache', reason: `${reason}: serving, each process limiting keys on its own until Redis is back` };
    }
  }
  // The blob store: every file route and job result needs it (an S3 store: its bucket answers within 3 s).
  try {
    await services.blobs.check();
  } catch (error) {
    return unavailable('storage', `file storage unavailable: ${(error as Error).message}`);
  }
  ctx.body = degraded ? { status: 'degraded', ...degraded } : { status: 'ready' };
};

/** Prometheus text, to whom src/http/metrics-access.ts admits. */
export const metrics: Handler = async (ctx, services) => {
  ctx.metricsAccess.admit(ctx.req);
  ctx.type = services.metrics.registry.contentType;
  ctx.body = await services.metrics.registry.metrics();
};
