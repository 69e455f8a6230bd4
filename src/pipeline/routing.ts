// Which upstream route serves a request, and which ones to fall back to. The choice is
// weighted but deterministic for a conversation (a hash of its beginning), so requests that
// share a prompt prefix stick to the same route and keep hitting its prompt cache.
import { createHash } from 'node:crypto';
import type { CatalogModel, Route } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../model/chat.js';
import { availableRoutes, routeKey } from './route-fallback.js';

function conversationHash(request: ChatRequest): number {
  const first = request.messages[0];
  const firstText = first?.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('') ?? '';
  const seed = request.system.map((part) => part.text).join('') + '\u0000' + firstText;
  return createHash('sha1').update(seed).digest().readUInt32BE(0);
}

/**
 * Routes in the order to try them: the sticky weighted pick first, the others as fallbacks.
 * Routes whose upstream asked for a pause (429/503 with Retry-After) are left out until then
 * (`now`: the process's clock, services.now).
 */
export function chooseRoutes(model: CatalogModel, request: ChatRequest, cooldowns: ReadonlyMap<string, number> = new Map(), now = Date.now()): Route[] {
  const available = availableRoutes(model.routes, cooldowns, now);
  // Weight 0 marks a fallback-only route: tried, in declared order, after the weighted ones.
  const weighted = available.filter((route) => route.weight > 0);
  const fallbacks = available.filter((route) => route.weight === 0);
  if (weighted.length <= 1) return [...weighted, ...fallbacks];
  const total = weighted.reduce((sum, route) => sum + route.weight, 0);
  let point = conversationHash(request) % total;
  let primary = 0;
  for (let i = 0; i < weighted.length; i++) {
    point -= weighted[i]!.weight;
    if (point < 0) {
      primary = i;
      break;
    }
  }
  return [weighted[primary]!, ...weighted.filter((_, i) => i !== primary), ...fallbacks];
}

/** Every route of the model is pausing at its upstream's request: say when to come back. */
export function allRoutesCoolingDown(model: CatalogModel, cooldowns: ReadonlyMap<string, number>, now = Date.now()): GatewayError {
  const until = Math.min(...model.routes.map((route) => cooldowns.get(routeKey(route)) ?? 0));
  const seconds = Math.min(60, Math.max(1, Math.ceil((until - now) / 1000)));
  return new GatewayError('upstream_rate_limited', `Every upstream of ${model.id} asked for a pause; retry in ${seconds} s.`, {
    headers: { 'retry-after': String(seconds), 'retry-after-ms': String(seconds * 1000) },
  });
}
