// What the middleware chain learns about a request, kept on ctx.state for later steps
// (handlers, the access log, the request log).
import type { ParameterizedContext } from 'koa';
import type { ApiKey } from '../auth/api-keys.js';
import type { Scope } from '../auth/scopes.js';
import type { AdminScope } from '../cabinet/admin-scopes.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestTrace } from '../observability/tracer.js';
import type { ServerServices } from '../services.js';
import type { MetricsAccess } from './metrics-access.js';
import type { ClientAddresses } from './client-address.js';

/** The cabinet session a request came with (routes with auth `session` or `admin`, src/http/middleware/session-auth.ts). */
export interface SessionState {
  readonly id: string;
  readonly kind: 'account' | 'admin';
  /** The account of an account session; null for an operator's. */
  readonly accountId: string | null;
  readonly csrfToken: string;
  /** The user of an account session; null for one opened by an operator's login link. */
  readonly userId: string | null;
  /** owner or member (an operator's link acts as owner; an operator's session is owner of nothing: null). */
  readonly role: 'owner' | 'member' | null;
}

export interface RequestState {
  requestId: string;
  startedAt: bigint;
  /** Set by `key` routes from the presented key, by `session` routes to the account's cabinet key. */
  apiKey?: ApiKey;
  /** Set by `session` routes, and by `admin` routes authenticated by an operator's session cookie. */
  session?: SessionState;
  /**
   * Who acts, for the audit trail: `user:<user id>` (a user's account session), `cabinet:<session
   * id>` (a session of an operator's login link; admin sessions) or `admin-token:<id>` (admin routes).
   */
  actor?: string;
  /** Set by `admin` routes: the admin token's scopes, or every scope for an operator's session (src/cabinet/admin-scopes.ts). */
  adminScopes?: readonly AdminScope[];
  /** The route's scope (the route table's), set once the key was found to have it: the pipeline checks it again on a key read anew. */
  scope?: Scope;
  model?: string;
  /** The provider of the last upstream route tried, when one was. */
  provider?: string;
  chargedUnits: bigint;
  /** The error a request was answered with, also when it went out inside a stream (the request log keeps it). */
  failure?: GatewayError;
  /** The request's trace (the shared no-op when traces are off or the sampler left it out). */
  trace: RequestTrace;
}

export type Context = ParameterizedContext<RequestState> & {
  params: Record<string, string>;
  _matchedRoute?: string;
  /** The client's address and scheme (server.trusted_proxies): one instance on app.context, set by createApp. */
  clientAddresses: ClientAddresses;
  /** Who may read /metrics (metrics.token_env, metrics.listen): one instance on app.context, set by createApp. */
  metricsAccess: MetricsAccess;
};

export type Handler = (ctx: Context, services: ServerServices) => Promise<void> | void;

/** The caller as the pipeline knows it: the key, the request id, and the state it notes the model and charge on. */
export function callerOf(ctx: Context): { readonly apiKey: ApiKey; readonly scope: Scope; readonly requestId: string; readonly log: RequestState; readonly trace: RequestTrace } {
  return { apiKey: ctx.state.apiKey!, scope: ctx.state.scope!, requestId: ctx.state.requestId, log: ctx.state, trace: ctx.state.trace };
}
