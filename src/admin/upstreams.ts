// Upstream health per route for the operator (GET /admin/v1/upstreams): every route of the
// catalog ("provider:upstream model", with the gateway models routed there), the pause an
// upstream asked for (Retry-After: the route cooldowns), and the calls, failures and latency
// of the last 15 minutes with the last failures (src/observability/route-health.ts).
// All of it is this process's own: each instance answers for the calls it made.
import { routeKey } from '../pipeline/route-fallback.js';
import type { ServerServices } from '../services.js';
import { healthWindowMs } from '../observability/route-health.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function upstreamHealth(services: ServerServices) {
  const routes = new Map<string, { provider: string; upstreamModel: string; models: string[] }>();
  for (const model of services.catalog.models) {
    for (const route of model.routes) {
      const key = routeKey(route);
      const entry = routes.get(key) ?? { provider: route.provider.name, upstreamModel: route.model, models: [] };
      if (!entry.models.includes(model.id)) entry.models.push(model.id);
      routes.set(key, entry);
    }
  }
  const now = services.now();
  const data = [...routes.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, route]) => {
      const health = services.upstreamObserver.health.snapshot(key);
      const cooldown = services.routeCooldowns.get(key);
      return {
        route: key,
        provider: route.provider,
        upstream_model: route.upstreamModel,
        models: route.models,
        cooldown_until: cooldown !== undefined && cooldown > now ? iso(cooldown) : null,
        calls: health.calls,
        errors: health.errors,
        latency_ms: health.latencyMs,
        recent_errors: health.recentErrors.map((note) => ({
          at: iso(note.at),
          status: note.status,
          message: note.message,
          model: note.model,
          operation: note.operation,
          request_id: note.requestId,
          job_id: note.jobId,
        })),
      };
    });
  return { object: 'list' as const, instance: services.config.instance.hostname, window_seconds: healthWindowMs / 1000, data, has_more: false as const };
}
