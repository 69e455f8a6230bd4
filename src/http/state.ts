// What the middleware chain learns about a request, kept on ctx.state for later steps
// (handlers, the access log, the request log).
import type { ParameterizedContext } from 'koa';
import type { ApiKey } from '../auth/api-keys.js';
import type { ServerServices } from '../services.js';

export interface RequestState {
  requestId: string;
  startedAt: bigint;
  apiKey?: ApiKey;
  model?: string;
  chargedUnits: bigint;
}

export type Context = ParameterizedContext<RequestState> & { params: Record<string, string>; _matchedRoute?: string };

export type Handler = (ctx: Context, services: ServerServices) => Promise<void> | void;
