// The one route choice with fallback and cooldown, for chat, media and job submits alike:
// the model's routes in order minus those whose upstream asked for a pause, tried one after
// the other until one serves. A failure that carries a Retry-After pauses its route (capped at
// maxCooldownMs) for every request of this process; whether the next route may be tried after
// a failure is the caller's rule (chat: nothing produced yet and a transient failure; media:
// a transient failure; job submit: the vendor refused, so nothing was made upstream).
import type { Route } from '../catalog/catalog.js';
import { noopRequestTrace, type RequestTrace, type UpstreamSpan } from '../observability/tracer.js';
import { UpstreamError } from '../vendors/types.js';

/** The longest pause a Retry-After can put on a route, whatever the upstream asked. */
export const maxCooldownMs = 300_000;

export const routeKey = (route: Route) => `${route.provider.name}:${route.model}`;

/** `routes` in their order, without those still pausing at their upstream's request. */
export function availableRoutes(routes: readonly Route[], cooldowns: ReadonlyMap<string, number>, now = Date.now()): Route[] {
  return routes.filter((route) => (cooldowns.get(routeKey(route)) ?? 0) <= now);
}

/** How long an upstream that asked for a pause is left alone: what it asked, at most maxCooldownMs. */
export function cooldownMs(retryAfterMs: number): number {
  return Math.min(retryAfterMs, maxCooldownMs);
}

/**
 * A route whose provider does not speak the operation (a catalog mistake `models check` also
 * reports): skipped without a pause, the next route is tried whatever the caller's rule says.
 */
export class RouteCannotServe extends UpstreamError {
  constructor(provider: string, operation: string) {
    super(`provider "${provider}" cannot ${operation}`, 501, false);
    this.name = 'RouteCannotServe';
  }
}

/** One call to one route, as tryRoutes reports it (a route that could not serve the operation is not reported). */
export interface RouteAttempt {
  readonly route: Route;
  /** 1 for the first route tried, 2 for the first fallback… */
  readonly attempt: number;
  /** From the call to its end (its answer, stream or failure). */
  readonly seconds: number;
  /** Set when the call failed. */
  readonly error?: unknown;
  /** The route tried after this failure, if any. */
  readonly next?: Route;
}

/**
 * Tries `routes` in order: the first result of `attempt` is returned; a failure pauses its
 * route when it says for how long, and the next route is tried only when `mayTryNext` allows it
 * (or the route could not serve the operation at all). Throws the last failure of a route that
 * tried; `routes` must not be empty (each caller says what no available route means to it).
 */
export async function tryRoutes<Result>(
  routes: readonly Route[],
  cooldowns: Map<string, number>,
  /** `span` is this try's (the no-op when the request is not traced): the caller records what the upstream answered on it. */
  attempt: (route: Route, span: UpstreamSpan) => Promise<Result>,
  mayTryNext: (error: unknown) => boolean,
  /** The process's clock (services.now), which a pause is measured on. */
  now: () => number = Date.now,
  /** Told of every call made (for the upstream log line and metrics, upstream-observer.ts). */
  report?: (outcome: RouteAttempt) => void,
  /** The request's trace: each try is a child span of it. */
  trace: RequestTrace = noopRequestTrace,
): Promise<Result> {
  let lastError: unknown;
  let tried = 0;
  for (const [index, route] of routes.entries()) {
    const startedAt = performance.now();
    const span = trace.upstreamTry(route.provider, route.model, tried + 1);
    try {
      const result = await attempt(route, span);
      span.end();
      report?.({ route, attempt: tried + 1, seconds: (performance.now() - startedAt) / 1000 });
      return result;
    } catch (error) {
      // A route that cannot serve the operation never hides the failure of one that tried.
      if (error instanceof RouteCannotServe) {
        span.discard();
        lastError ??= error;
        continue;
      }
      span.end(error);
      tried++;
      lastError = error;
      if (error instanceof UpstreamError && error.retryAfterMs) cooldowns.set(routeKey(route), now() + cooldownMs(error.retryAfterMs));
      const tryNext = mayTryNext(error);
      report?.({ route, attempt: tried, seconds: (performance.now() - startedAt) / 1000, error, next: tryNext ? routes[index + 1] : undefined });
      if (!tryNext) break;
    }
  }
  throw lastError;
}
