// The upstream exchange of one chat request: its routes in order (routing.ts, route-fallback.ts),
// each try streamed from the vendor's adapter into the relay. Another route is tried only while
// nothing was produced and the failure is transient. Never throws: the failure, if any, is
// returned for the caller to meter and answer.
import type { CatalogModel, Route } from '../catalog/catalog.js';
import type { ChatRequest, ModelCapabilities } from '../model/chat.js';
import type { RequestTrace } from '../observability/tracer.js';
import type { UpstreamObserver } from './upstream-observer.js';
import { openEventStream, type Upstream } from '../vendors/shared/http-transport.js';
import { UpstreamError, type UpstreamTarget } from '../vendors/types.js';
import type { ChatRelay } from './chat-relay.js';
import { tryRoutes } from './route-fallback.js';
import { allRoutesCoolingDown, chooseRoutes } from './routing.js';

export interface ChatUpstreamServices {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly routeCooldowns: Map<string, number>;
  readonly upstreamObserver: UpstreamObserver;
  readonly now: () => number;
}

export interface ChatExchange {
  readonly model: CatalogModel;
  readonly capabilities: ModelCapabilities;
  readonly request: ChatRequest;
  readonly maxOutputTokens: number;
  readonly requestId: string;
  readonly relay: ChatRelay;
  /** Aborted when the client leaves: its reason (ClientGoneError) is the failure then. */
  readonly abort: AbortController;
  readonly trace: RequestTrace;
  /** Told the provider of each route tried (the request log's). */
  readonly log: { provider?: string };
}

export interface ChatExchangeOutcome {
  readonly failure: unknown;
  /** The route of the last try, and when that try started (performance.now()). */
  readonly route: Route | undefined;
  readonly attemptStartedAt: number;
}

export async function exchangeWithUpstream(services: ChatUpstreamServices, exchange: ChatExchange): Promise<ChatExchangeOutcome> {
  const { model, relay, abort, trace } = exchange;
  let route: Route | undefined;
  let attemptStartedAt = 0;
  try {
    const routesAt = services.now();
    const routes = chooseRoutes(model, exchange.request, services.routeCooldowns, routesAt);
    if (routes.length === 0) throw allRoutesCoolingDown(model, services.routeCooldowns, routesAt);
    await tryRoutes(
      routes,
      services.routeCooldowns,
      async (next, span) => {
        route = next;
        attemptStartedAt = performance.now();
        exchange.log.provider = next.provider.name;
        relay.startAttempt();
        await streamOneRoute(services, exchange, next, span);
      },
      // Another route may serve it only if nothing was produced and the failure is transient.
      (error) => !relay.producedOutput && !relay.committed && error instanceof UpstreamError && error.retryable && !abort.signal.aborted,
      services.now,
      // A call cut because the client left is no upstream failure: only its duration counts.
      (attempt) =>
        services.upstreamObserver.attempted(
          { operation: 'chat', model: model.id, requestId: exchange.requestId },
          abort.signal.aborted ? { route: attempt.route, attempt: attempt.attempt, seconds: attempt.seconds } : attempt,
        ),
      trace,
    );
    return { failure: undefined, route, attemptStartedAt };
  } catch (error) {
    return { failure: abort.signal.aborted ? abort.signal.reason : error, route, attemptStartedAt };
  } finally {
    relay.stop();
  }
}

type TrySpan = Parameters<Parameters<typeof tryRoutes>[2]>[1];

async function streamOneRoute(services: ChatUpstreamServices, exchange: ChatExchange, route: Route, span: TrySpan): Promise<void> {
  const { model, request, relay, abort, trace, maxOutputTokens } = exchange;
  const upstream = services.upstreams.get(route.provider.name)!;
  const adapter = upstream.adapter;
  if (!adapter) throw new Error(`provider "${upstream.name}" (kind ${upstream.kind}) cannot serve chat`);
  const apiKey = upstream.credential ? await upstream.credential(abort.signal) : upstream.apiKey;
  const target: UpstreamTarget = { model: route.model, baseUrl: upstream.baseUrl, apiKey, capabilities: exchange.capabilities, maxOutputTokens, search: model.type === 'search', settings: upstream.settings };
  span.maxTokens(maxOutputTokens);
  if (trace.capturesContent) span.input(request);
  const parser = adapter.createStreamParser(target, request);
  try {
    const readEvents = await openEventStream(upstream, adapter, adapter.buildRequest({ ...request, model: model.id }, target), abort.signal);
    await readEvents((event) => relay.handle(parser.push(event)));
  } catch (error) {
    // A call cut because the client left fails as that (ClientGoneError), not as the
    // connection error the transport reports: its span says so, and nothing else reads it
    // otherwise (the failure is the abort's reason either way).
    throw abort.signal.aborted ? abort.signal.reason : error;
  }
  relay.handle(parser.end());
  const { accumulator } = relay;
  if (trace.recording) span.answered({ id: accumulator.id, model: accumulator.model, finishReason: accumulator.finishReason, usage: accumulator.usage });
  if (trace.capturesContent) span.output(accumulator.result({ created: relay.created }));
}
