// The charge path of the synchronous media operations (images.ts, audio.ts, embeddings.ts,
// decisions.ts): hold the quoted price, call the upstream through the route's media adapter
// (falling back to the next route on a transient failure, route-fallback.ts), settle to the
// actual price, release on failure. Every media operation goes through `chargedMediaCall`, so
// none can reach an upstream without the charge path.
import type { ApiKey } from '../auth/api-keys.js';
import { assertScope } from '../auth/assert-scope.js';
import { assertKeyUsable, assertModelAllowed } from '../auth/key-policy.js';
import type { Scope } from '../auth/scopes.js';
import { openCharge, type ChargeServices } from '../billing/charge-envelope.js';
import type { KeyLimits } from '../auth/key-limits.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import type { UpstreamObserver } from './upstream-observer.js';
import type { Upstream } from '../vendors/shared/http-transport.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ModelType } from '../config/schema.js';
import type { MediaAdapter, MediaOperation, MediaStreamOperation, MediaTarget } from '../vendors/media-types.js';
import { mediaAdapterFor } from '../vendors/registry.js';
import { runMediaOperation, streamMediaOperation } from '../vendors/shared/media-transport.js';
import { UpstreamError } from '../vendors/types.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { invalid } from '../validation/zod-details.js';
import { mediaTarget } from './job-context.js';
import { availableRoutes, RouteCannotServe, tryRoutes } from './route-fallback.js';
import { upstreamFailure } from './upstream-failure.js';
import { noopRequestTrace, type RequestTrace } from '../observability/tracer.js';

/** What the media charge path uses of a serving process's services. */
export interface MediaServices extends ChargeServices {
  readonly catalog: Catalog;
  readonly config: Config;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly routeCooldowns: Map<string, number>;
  readonly upstreamObserver: UpstreamObserver;
  readonly keyLimits: Pick<KeyLimits, 'countTokens'>;
}

/** The model a media request names (or the first enabled model of the type when it names none). */
export function resolveMediaModel(services: Pick<MediaServices, 'catalog'>, name: string | undefined, types: readonly ModelType[]): CatalogModel {
  if (name === undefined) {
    const fallback = services.catalog.enabledModels.find((model) => types.includes(model.type));
    if (!fallback) throw invalid(['body', 'model'], `no ${types.join('/')} model is available on this gateway`);
    return fallback;
  }
  const model = services.catalog.resolve(name);
  if (!types.includes(model.type)) throw invalid(['body', 'model'], `"${name}" is a ${model.type} model, not a ${types.join('/')} model`, name);
  return model;
}

/**
 * Who asks, and where the pipeline notes what the request log keeps: the model as soon as it is
 * resolved and the charge once settled, so a request that fails midway is still logged with its
 * model (the HTTP request state is such a record).
 */
export interface MediaCaller {
  readonly apiKey: ApiKey;
  /** The route's scope (the route table's), checked again on a key read anew by the hold. */
  readonly scope: Scope;
  readonly requestId: string;
  readonly log: { model?: string; provider?: string; chargedUnits: bigint; failure?: GatewayError };
  /** The request's trace: the hold, each upstream try and the settle are its child spans. */
  readonly trace?: RequestTrace;
}

/**
 * How a streamed operation's events are taken (images with partial_images): each as it arrives,
 * then the result once the stream ended.
 */
export interface MediaEvents<Event, Result> {
  /** Each event of the route's answer, in the tick it arrived (a preview relayed to the client). */
  readonly onEvent: (event: Event) => void;
  /** The result of the stream that ended (the completed images). */
  readonly result: () => Result;
  /** True once an event came: it may have reached the client, so no other route is tried. */
  readonly started: () => boolean;
}

export interface MediaCall<Request, Result, Event = never> {
  readonly caller: MediaCaller;
  readonly model: CatalogModel;
  readonly operation: Exclude<keyof MediaAdapter, 'kind' | 'parseError'>;
  readonly request: Request;
  /** The worst case to hold before going upstream. */
  readonly holdUnits: bigint;
  /** The actual price once the upstream answered (never above the hold: the excess is not charged). */
  readonly actualUnits: (result: Result) => bigint;
  readonly description: string;
  /** What the charge was for, written on its usage record (`gateway usage`, `gateway reconcile`). */
  readonly units: (result: Result) => MediaUnits;
  /**
   * Keeps what the client is to receive (images stored as files) before the charge is settled:
   * when it fails (the blob store is down), the hold is released uncharged and its error thrown
   * on — a client is never charged for a result it did not get.
   */
  readonly keep?: (result: Result) => Promise<void>;
  /** A streamed operation (`streamImages`, `streamImageEdits`): the route's answer read as events. */
  readonly events?: MediaEvents<Event, Result>;
  /** Aborted when the client leaves: the upstream call is torn down, and the signal's reason is the failure. */
  readonly signal?: AbortSignal;
}

/**
 * The units a media charge is for: `endpoint` names the operation (images, image-edits,
 * image-upscale, speech, transcriptions, embeddings, decisions); the rest are whole units as charged.
 */
export interface MediaUnits {
  readonly endpoint: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly images?: number;
  readonly characters?: number;
  readonly audioSeconds?: number;
}

/** The GenAI conventions' operation name of a media operation: embeddings are theirs; the rest generate content. */
const genAiOperation = (operation: MediaCall<unknown, unknown>['operation']) => (operation === 'embed' ? 'embeddings' : 'generate_content');

/** Hold, upstream (with fallback), keep the result, settle — or release on failure. The charge is noted on the caller's log. */
export async function chargedMediaCall<Request, Result, Event = never>(services: MediaServices, call: MediaCall<Request, Result, Event>): Promise<Result> {
  const { model, caller } = call;
  const trace = caller.trace ?? noopRequestTrace;
  trace.operation(genAiOperation(call.operation), call.operation);
  assertModelAllowed(caller.apiKey, model.id);
  const started = performance.now();
  const charge = await openCharge(
    services,
    {
      key: caller.apiKey,
      model: model.id,
      requestId: caller.requestId,
      description: call.description,
      recheck: (fresh) => {
        assertKeyUsable(fresh, services.now(), undefined);
        assertScope(fresh, caller.scope);
        assertModelAllowed(fresh, model.id);
      },
      trace,
    },
    call.holdUnits,
  );
  let result: Result;
  const routeTaken: { upstreamModel?: string } = {};
  try {
    result = await callUpstream(services, call, routeTaken, trace);
  } catch (error) {
    await charge.release();
    throw upstreamFailure(error, services.upstreamObserver);
  }
  if (call.keep) {
    try {
      await call.keep(result);
    } catch (error) {
      await charge.release();
      throw error;
    }
  }
  const units = call.units(result);
  // The usage record is written by the settle itself, in the charge's commit (as chat's is);
  // a settle the database cannot take now is retried in the background (pending-settles.ts).
  const settlement = await charge.settle(call.actualUnits(result), {
    endpoint: units.endpoint,
    provider: caller.log.provider,
    upstreamModel: routeTaken.upstreamModel,
    inputTokens: units.inputTokens,
    outputTokens: units.outputTokens,
    latencyMs: Math.round(performance.now() - started),
    images: units.images,
    characters: units.characters,
    audioSeconds: units.audioSeconds,
  });
  caller.log.chargedUnits = settlement.chargedUnits;
  // Media calls that report tokens (embeddings, decisions) count them against the key's tpm.
  await services.keyLimits.countTokens(charge.key, (units.inputTokens ?? 0) + (units.outputTokens ?? 0));
  return result;
}

/** `routeTaken` is told the upstream model of the route that answered. */
async function callUpstream<Request, Result, Event>(services: MediaServices, call: MediaCall<Request, Result, Event>, routeTaken: { upstreamModel?: string }, trace: RequestTrace): Promise<Result> {
  const routes = availableRoutes(call.model.routes, services.routeCooldowns, services.now());
  if (routes.length === 0) throw new UpstreamError(`every route of ${call.model.id} is pausing at its upstream's request`, 429, true);
  const clientGone = () => call.signal?.aborted === true;
  return tryRoutes(
    routes,
    services.routeCooldowns,
    (route, span) => {
      const upstream = services.upstreams.get(route.provider.name);
      const adapter = upstream && mediaAdapterFor(upstream.kind, call.operation);
      const operation = adapter?.[call.operation];
      if (!upstream || !adapter || !operation) throw new RouteCannotServe(route.provider.name, call.operation);
      const target = mediaTarget(upstream, route.model);
      call.caller.log.provider = upstream.name;
      routeTaken.upstreamModel = route.model;
      const timeout = AbortSignal.timeout(upstream.timeoutMs);
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
      const answer = call.events
        ? readEvents(upstream, operation as MediaStreamOperation<Request, Event>, call, target, signal, adapter.parseError, call.events)
        : runMediaOperation(upstream, operation as MediaOperation<Request, Result>, call.request, target, signal, adapter.parseError);
      // A call cut because the client left fails as that (ClientGoneError), not as the transport's abort.
      const settled = answer.catch((error: unknown) => {
        throw clientGone() ? call.signal!.reason : error;
      });
      if (!trace.recording) return settled;
      return settled.then((result) => {
        const units = call.units(result);
        span.answered({ usage: { inputTokens: units.inputTokens, outputTokens: units.outputTokens } });
        return result;
      });
    },
    // A transient failure, before anything of a stream came: the next route may serve it.
    (error) => error instanceof UpstreamError && error.retryable && !clientGone() && !(call.events?.started() ?? false),
    services.now,
    // A call cut because the client left is no upstream failure: only its duration counts.
    (attempt) =>
      services.upstreamObserver.attempted(
        { operation: call.operation, model: call.model.id, requestId: call.caller.requestId },
        clientGone() ? { route: attempt.route, attempt: attempt.attempt, seconds: attempt.seconds } : attempt,
      ),
    trace,
  );
}

/** A streamed operation read to its end, each event handed on as it comes; then its result. */
async function readEvents<Request, Result, Event>(
  upstream: Upstream,
  operation: MediaStreamOperation<Request, Event>,
  call: MediaCall<Request, Result, Event>,
  target: MediaTarget,
  signal: AbortSignal,
  parseError: MediaAdapter['parseError'],
  events: MediaEvents<Event, Result>,
): Promise<Result> {
  await streamMediaOperation(upstream, operation, call.request, target, signal, parseError, events.onEvent);
  return events.result();
}
