// Liveness, readiness and metrics: outside /v1, no key, not rate limited.
import type { Handler } from '../state.js';

export const healthz: Handler = (ctx) => {
  ctx.body = { status: 'ok' };
};

export const readyz: Handler = async (ctx, services) => {
  try {
    await services.db.raw('select 1');
    ctx.body = { status: 'ready' };
  } catch (error) {
    ctx.status = 503;
    ctx.body = { status: 'unavailable', reason: `database unreachable: ${(error as Error).message}` };
  }
};

export const metrics: Handler = async (ctx, services) => {
  ctx.type = services.metrics.registry.contentType;
  ctx.body = await services.metrics.registry.metrics();
};
