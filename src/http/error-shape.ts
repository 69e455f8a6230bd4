// Which dialect's error body a request gets: the route table says it per route (`errors`: the
// dialect's encoder). A route that names none, and a path no route matched, keep the rule the
// clients know: /v1/messages* is Anthropic's, /v1beta/* Google's (the Gemini API), everything else OpenAI's. Looked up only when a
// request fails, so the success path pays nothing for it.
import { encodeGeminiError } from '../dialects/gemini/error.js';
import { encodeAnthropicError } from '../dialects/messages/error.js';
import { encodeOpenaiError } from '../dialects/shared/openai-error.js';
import type { ErrorEncoder } from '../dialects/types.js';
import type { RouteDefinition } from './route-table.js';

export type ErrorShapeFor = (matchedRoute: string | undefined, path: string) => ErrorEncoder;

const byPathPrefix = (path: string): ErrorEncoder =>
  path.startsWith('/v1/messages') ? encodeAnthropicError : path.startsWith('/v1beta/') ? encodeGeminiError : encodeOpenaiError;

export function errorShapes(routes: readonly RouteDefinition[]): ErrorShapeFor {
  const byRoute = new Map<string, ErrorEncoder>();
  for (const route of routes) {
    const encoder = route.errors ?? byPathPrefix(route.path);
    const known = byRoute.get(route.path);
    // The router names a match by its path only, so one path has one error shape.
    if (known && known !== encoder) throw new Error(`route table: ${route.path} declares two error shapes`);
    byRoute.set(route.path, encoder);
  }
  return (matchedRoute, path) => (matchedRoute === undefined ? undefined : byRoute.get(matchedRoute)) ?? byPathPrefix(path);
}
