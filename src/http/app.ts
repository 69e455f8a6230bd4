// The Koa application: request context (ids, errors, observation) first, then one router
// built from the route table. Each route's chain is assembled here from its declaration:
// authenticate → scope → rate limit → body → handler.
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { ServerServices } from '../services.js';
import { authenticate } from './middleware/authenticate.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { requireScope } from './middleware/require-scope.js';
import { routeTable, type RouteDefinition } from './route-table.js';
import type { Context, RequestState } from './state.js';

export function createApp(services: ServerServices, routes: readonly RouteDefinition[] = routeTable): Koa<RequestState> {
  const app = new Koa<RequestState>({ proxy: false });
  app.silent = true; // errors are logged by requestContext, once, with the request id
  const router = new Router<RequestState>();
  const auth = authenticate(services);
  const limiter = rateLimit(services);
  const jsonBody = koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: services.config.server.jsonLimitBytes, jsonStrict: true });
  for (const route of routes) {
    const chain: Middleware[] = [];
    if (route.auth === 'key') {
      chain.push(auth as Middleware);
      if (route.scope) chain.push(requireScope(route.scope) as Middleware);
      if (route.rateLimited ?? true) chain.push(limiter as Middleware);
    }
    if (route.body === 'json') chain.push(jsonBody);
    const handler = route.handler;
    chain.push((ctx) => handler(ctx as Context, services));
    router.register(route.path, [route.method], chain as never);
  }
  app.use(requestContext(services) as Middleware);
  app.use(router.routes() as Middleware);
  // A known path with the wrong method is a 405 (thrown, so the error contract encodes it).
  app.use(router.allowedMethods({ throw: true }) as Middleware);
  return app;
}
