// Which upstream route serves a request, and which ones to fall back to. The choice is
// weighted but deterministic for a conversation (a hash of its beginning), so requests that
// share a prompt prefix stick to the same route and keep hitting its prompt cache.
import { createHash } from 'node:crypto';
import type { CatalogModel, Route } from '../catalog/catalog.js';
import type { ChatRequest } from '../model/chat.js';

function conversationHash(request: ChatRequest): number {
  const first = request.messages[0];
  const firstText = first?.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('') ?? '';
  const seed = request.system.map((part) => part.text).join('') + '\u0000' + firstText;
  return createHash('sha1').update(seed).digest().readUInt32BE(0);
}

/** Routes in the order to try them: the sticky weighted pick first, the others as fallbacks. */
export function chooseRoutes(model: CatalogModel, request: ChatRequest): Route[] {
  const routes = model.routes.filter((route) => route.weight > 0);
  if (routes.length <= 1) return routes.length === 1 ? routes : [...model.routes];
  const total = routes.reduce((sum, route) => sum + route.weight, 0);
  let point = conversationHash(request) % total;
  let primary = 0;
  for (let i = 0; i < routes.length; i++) {
    point -= routes[i]!.weight;
    if (point < 0) {
      primary = i;
      break;
    }
  }
  return [routes[primary]!, ...routes.filter((_, i) => i !== primary)];
}
