// The Koa application: request context (ids, errors, observation) first, then the routes of
// the route table. Each route's chain is assembled here from its declaration:
// authenticate (a key, an account session or an admin) → scope (a key's, or an admin token's)
// → key limits (tpm, in flight) → rate limit → body → handler.
// Each auth kind is its own middleware, in the chains of its routes only: a `key` route runs
// exactly what it ran before the cabinet existed.
// Paths without parameters (the chat, media and price routes: most traffic) are looked up in
// a map built here, their chains composed once; @koa/router matches the rest (it tests every
// route's pattern and composes the matched chain on each request: ~5% of what a chat request
// allocated).
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import type { ServerServices } from '../services.js';
import { ClientAddresses } from './client-address.js';
import { errorShapes } from './error-shape.js';
import { jsonBody as readJsonBody } from './json-body.js';
import { metricsAccess } from './metrics-access.js';
import { adminAuth, requireAdminScope } from './middleware/admin-auth.js';
import { authenticate } from './middleware/authenticate.js';
import { keyLimits } from './middleware/key-limits.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { requireScope } from './middleware/require-scope.js';
import { requireOwner, sessionAuth } from './middleware/session-auth.js';
import { routeTable, type RouteDefinition } from './route-table.js';
import type { Context, RequestState } from './state.js';

/** What follows a route's chain: nothing (its handler answers). */
const routeEnd = async (): Promise<void> => undefined;

export function createApp(services: ServerServices, routes: readonly RouteDefinition[] = routeTable): Koa<RequestState> {
  const app = new Koa<RequestState>({ proxy: false });
  app.silent = true; // errors are logged by requestContext, once, with the request id
  // On the context's prototype: every request reads the same instance, nothing is built per request.
  (app.context as unknown as Context).clientAddresses = new ClientAddresses(services.config.server.trustedProxies);
  (app.context as unknown as Context).metricsAccess = metricsAccess(services.config.metrics);
  const router = new Router<RequestState>();
  const auth = authenticate(services);
  const cachedAuth = authenticate(services, { cached: true });
  const limiter = rateLimit(services);
  const limits = keyLimits(services);
  const session = sessionAuth(services);
  const admin = adminAuth(services);
  const jsonBody = readJsonBody(services.config.server.jsonLimitBytes);
  /** Exact path → method → the route's composed chain. */
  const staticRoutes = new Map<string, Map<string, { path: string; chain: Middleware }>>();
  for (const route of routes) {
    const chain: Middleware[] = [];
    if (route.auth === 'key' || route.auth === 'session') {
      if (route.auth === 'key') chain.push((route.keyCheckedByHold ? cachedAuth : auth) as Middleware);
      else {
        chain.push(session as Middleware);
        if (route.owner) chain.push(requireOwner as Middleware);
      }
      if (route.scope) chain.push(requireScope(services, route.scope, { cached: route.keyCheckedByHold === true }) as Middleware);
      // The key's own tpm and in-flight limits first: a request the rpm limiter refuses gives its slot back.
      if (route.rateLimited ?? true) chain.push(limits as Middleware, limiter as Middleware);
    }
    if (route.auth === 'admin') chain.push(admin as Middleware, requireAdminScope(route.scope) as Middleware);
    if (route.body === 'json') chain.push(jsonBody);
    const handler = route.handler;
    chain.push((ctx) => handler(ctx as Context, services));
    router.register(route.path, [route.method], chain as never);
    if (!/[:{*]/.test(route.path)) {
      const byMethod = staticRoutes.get(route.path) ?? new Map();
      byMethod.set(route.method, { path: route.path, chain: compose(chain) });
      staticRoutes.set(route.path, byMethod);
    }
  }
  app.use(requestContext(services, errorShapes(routes)) as Middleware);
  // Anything else (a parameter, a trailing slash, HEAD, a wrong method) goes on to the router.
  app.use((ctx, next) => {
    const found = staticRoutes.get(ctx.path)?.get(ctx.method);
    if (!found) return next();
    (ctx as unknown as Context)._matchedRoute = found.path;
    (ctx as unknown as Context).params = {};
    return found.chain(ctx, routeEnd);
  });
  app.use(router.routes() as Middleware);
  // A known path with the wrong method is a 405 (thrown, so the error contract encodes it).
  app.use(router.allowedMethods({ throw: true }) as Middleware);
  return app;
}
