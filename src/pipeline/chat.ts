// The chat pipeline: the only place that sequences a chat request.
//   decode (dialect) → resolve model → scope and capability checks → quote and hold →
//   upstream (adapter + transport, always streamed) → meter → encode (dialect) → settle.
// Money: nothing reaches an upstream without a hold; an upstream failure before any output
// releases it; a stream cut by the client or the upstream is charged for what was produced
// (upstream usage if it came, else counted from the text and flagged as estimated).
import { assertScope } from '../auth/assert-scope.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ApiKey } from '../auth/api-keys.js';
import { chargeForUsage } from '../billing/chat-pricing.js';
import { assertKeyUsable, assertModelAllowed } from '../auth/key-policy.js';
import type { CatalogModel, Route } from '../catalog/catalog.js';
import type { Dialect, StreamEncoder } from '../dialects/types.js';
import { ResultAccumulator } from '../model/accumulate.js';
import { emptyUsage, type ChatRequest, type ModelCapabilities, type ReasoningEffort, type StreamPart } from '../model/chat.js';
import { closestReasoningEffort } from '../model/reasoning.js';
import { countTextTokens, highInputTokens, measureInput, plainInputTokens } from '../model/token-estimate.js';
import { openEventStream } from '../vendors/shared/http-transport.js';
import { UpstreamError, type UpstreamTarget } from '../vendors/types.js';
import { noopRequestTrace, type RequestTrace } from '../observability/tracer.js';
import type { ServerServices } from '../services.js';
import { invalid } from '../validation/zod-details.js';
import { holdWorstCase } from './chat-hold.js';
import { fitContextWindow } from './context-window.js';
import { meter } from './meter.js';
import { tryRoutes } from './route-fallback.js';
import { allRoutesCoolingDown, chooseRoutes } from './routing.js';
import { ClientGoneError, type ResponseSink } from './sink.js';
import { upstreamFailure } from './upstream-failure.js';

/** Output cap for models that do not declare one. */
const defaultMaxOutputTokens = 4_096;

export interface ChatInput {
  readonly dialect: Dialect;
  readonly body: unknown;
  readonly apiKey: ApiKey;
  readonly requestId: string;
  readonly sink: ResponseSink;
  /** Where the access line and request log learn the model and provider, as soon as they are known (a failed request keeps them). */
  readonly log: { model?: string; provider?: string; failure?: GatewayError };
  /** The client's address (src/http/client-address.ts), for a key with an IP allowlist read again mid-request. */
  readonly address?: string;
  /** The request's trace: the hold, each upstream try and the settle are its child spans. */
  readonly trace?: RequestTrace;
}

export interface ChatOutcome {
  model: string;
  chargedUnits: bigint;
}

export function capabilitiesOf(model: CatalogModel): ModelCapabilities {
  const c = model.config.capabilities;
  return {
    reasoningEfforts: c.reasoning_efforts ?? [],
    canDisableReasoning: c.can_disable_reasoning ?? false,
    vision: c.vision ?? false,
    tools: c.tools ?? false,
    maxOutputTokens: c.max_output_tokens ?? defaultMaxOutputTokens,
    structuredOutputs: c.structured_outputs ?? false,
  };
}

/**
 * Resolves the model of a decoded request and checks it can serve this request for this key.
 * The request comes back with a hinted effort fitted to the model.
 */
export function resolveChatModel(
  services: ServerServices,
  dialect: Dialect,
  decoded: ChatRequest,
  apiKey: ApiKey,
): { model: CatalogModel; capabilities: ModelCapabilities; request: ChatRequest } {
  const model = services.catalog.resolve(decoded.model);
  if (model.type !== 'text' && model.type !== 'search') {
    throw invalid(['body', 'model'], `"${decoded.model}" is a ${model.type} model, not a chat model`, decoded.model);
  }
  if (model.type === 'search') assertScope(apiKey, 'search');
  assertModelAllowed(apiKey, model.id, decoded.model);
  const capabilities = capabilitiesOf(model);
  const request = fitEffortHint(decoded, capabilities);
  checkCapabilities(dialect, request, capabilities, model.id);
  return { model, capabilities, request };
}

/**
 * Anthropic (and many compatible servers) count thinking inside output tokens without saying
 * how much: the reasoning share is then counted from the reasoning text that came, so clients
 * see it in `reasoning_tokens` (never more than the output itself).
 */
function withCountedReasoning(part: Extract<StreamPart, { type: 'usage' }>, accumulator: ResultAccumulator): Extract<StreamPart, { type: 'usage' }> {
  const reasoning = accumulator.reasoningText();
  if (reasoning === '') return part;
  return { type: 'usage', usage: { ...part.usage, reasoningTokens: Math.min(countTextTokens(reasoning), part.usage.outputTokens) } };
}

/** The efforts a model accepts: its list, and 'off' where reasoning can be switched off. */
function allowedEfforts(capabilities: ModelCapabilities): ReasoningEffort[] {
  const allowed = [...capabilities.reasoningEfforts];
  if (capabilities.canDisableReasoning && !allowed.includes('off')) allowed.push('off');
  return allowed;
}

/**
 * An effort that is only a hint (Anthropic `output_config.effort`) never refuses a request:
 * the closest level the model has is used, and a model that does not reason ignores it.
 */
function fitEffortHint(request: ChatRequest, capabilities: ModelCapabilities): ChatRequest {
  if (!request.reasoningEffortIsHint || request.reasoningEffort === undefined) return request;
  const { reasoningEffort: _hint, reasoningEffortIsHint: _isHint, ...rest } = request;
  const effort = closestReasoningEffort(request.reasoningEffort, allowedEfforts(capabilities));
  return effort === undefined ? rest : { ...rest, reasoningEffort: effort };
}

function checkCapabilities(dialect: Dialect, request: ChatRequest, capabilities: ModelCapabilities, modelId: string): void {
  const { locations } = dialect;
  const effort = request.reasoningEffort;
  if (effort !== undefined) {
    const allowed = allowedEfforts(capabilities);
    if (!allowed.includes(effort)) {
      const choices = allowed.length > 0 ? `one of ${allowed.map((e) => `'${e}'`).join(', ')}` : 'not set: this model does not reason';
      throw invalid([...locations.reasoningEffort], `reasoning effort '${effort}' is not supported by ${modelId}; use ${choices}`, effort);
    }
  }
  if (request.maxOutputTokens !== undefined && request.maxOutputTokens > capabilities.maxOutputTokens) {
    throw invalid([...locations.maxOutputTokens], `Input should be less than or equal to ${capabilities.maxOutputTokens} (the output limit of ${modelId})`, request.maxOutputTokens, 'less_than_equal');
  }
  if (!capabilities.vision && request.messages.some((m) => m.content.some((p) => p.type === 'image' || (p.type === 'tool_result' && p.content.some((c) => c.type === 'image'))))) {
    throw invalid([...locations.messages], `${modelId} does not accept images`);
  }
  if (!capabilities.tools && request.tools.length > 0) {
    throw invalid([...locations.tools], `${modelId} does not support tools`);
  }
}

export async function runChat(services: ServerServices, input: ChatInput): Promise<ChatOutcome> {
  const { dialect, requestId, sink } = input;
  const trace = input.trace ?? noopRequestTrace;
  trace.operation('chat', 'chat');
  let { apiKey } = input;
  const started = performance.now();
  const decoded = dialect.decodeRequest(input.body);
  let resolved: ReturnType<typeof resolveChatModel>;
  try {
    resolved = resolveChatModel(services, dialect, decoded, apiKey);
  } catch (error) {
    if (!(error instanceof GatewayError && (error.code === 'model_not_allowed' || error.code === 'insufficient_scope'))) throw error;
    // The key may be a cached copy older than an update (models, scopes): confirm on the key as it is now.
    const fresh = await services.apiKeys.refresh(apiKey.id);
    if (fresh.revision === apiKey.revision) throw error;
    apiKey = fresh;
    assertKeyUsable(apiKey, services.now(), input.address);
    resolved = resolveChatModel(services, dialect, decoded, apiKey);
  }
  const { model, capabilities, request } = resolved;
  const outcome: ChatOutcome = { model: model.id, chargedUnits: 0n };
  input.log.model = model.id;
  // One walk over the request gives both estimates: the plain one must fit the context window
  // (refused before any hold), the high one sizes the hold.
  const inputSize = measureInput(request);
  const outputBudget = fitContextWindow(
    model.config.capabilities.context_window,
    plainInputTokens(inputSize),
    { requested: request.maxOutputTokens, cap: capabilities.maxOutputTokens },
    String(dialect.locations.messages.at(-1)),
  );
  const holdSpan = trace.hold();
  let held: Awaited<ReturnType<typeof holdWorstCase>>;
  try {
    held = await holdWorstCase(services, request, model, { inputTokens: highInputTokens(inputSize), outputBudget }, apiKey, {
      requestId,
      description: `${dialect.name} ${model.id}`,
      address: input.address,
    });
  } catch (error) {
    holdSpan.end(error);
    throw error;
  }
  const { prices, maxOutputTokens, hold } = held;
  holdSpan.amount(hold?.amountUnits ?? 0n);
  holdSpan.end();

  // Gateway-tracked prompt cache, for upstreams that cache but do not say so.
  const trackedCachedTokens = model.config.capabilities.prompt_cache ? await services.prefixTracker.cachedTokens(model.id, request) : 0;

  const abort = new AbortController();
  sink.onClose(() => abort.abort(new ClientGoneError()));
  let accumulator = new ResultAccumulator();
  const created = Math.floor(Date.now() / 1000);
  let encoder: StreamEncoder | undefined;
  let firstOutputAt: number | undefined;
  let producedOutput = false;
  let routeUsed: { provider: string; model: string } | undefined;
  let attemptStartedAt = 0;
  let routeTaken: Route | undefined;
  let failure: unknown;

  // Parts that carry no output (start, usage) wait until the first output part: only then is
  // the 200 committed, so a failure before any output is still a normal JSON error.
  let pending: StreamPart[] = [];
  let lastWriteAt = performance.now();
  const commit = () => {
    encoder = dialect.createStreamEncoder(request, { id: accumulator.id || requestId, created });
    sink.startStream();
    for (const early of pending) sink.write(encoder.encode(early));
    pending = [];
  };
  const handle = (parts: readonly StreamPart[]) => {
    for (let part of parts) {
      if (part.type === 'usage' && trackedCachedTokens > 0 && part.usage.cachedInputTokens === 0) {
        part = { type: 'usage', usage: { ...part.usage, cachedInputTokens: Math.min(trackedCachedTokens, part.usage.inputTokens) } };
      }
      if (part.type === 'usage' && part.usage.reasoningTokens === 0) part = withCountedReasoning(part, accumulator);
      accumulator.push(part);
      const isOutput = part.type !== 'start' && part.type !== 'usage';
      if (isOutput && !producedOutput && part.type !== 'finish') {
        producedOutput = true;
        firstOutputAt = performance.now();
      }
      if (!request.stream) continue;
      if (!encoder) {
        if (!isOutput) {
          pending.push(part);
          continue;
        }
        commit();
      }
      const text = encoder!.encode(part);
      if (text) {
        sink.write(text);
        lastWriteAt = performance.now();
      }
    }
  };
  // A stream that has been silent for 15 s gets an SSE comment, so proxies and clients do not
  // time it out (a long think before the first token commits the 200 at that point).
  const keepAliveMs = services.config.server.streamKeepAliveMs;
  const keepAlive = request.stream
    ? setInterval(() => {
        if (performance.now() - lastWriteAt < keepAliveMs) return;
        if (!encoder) commit();
        sink.write(': ping\n\n');
        lastWriteAt = performance.now();
      }, Math.min(1_000, keepAliveMs))
    : undefined;

  try {
    const routesAt = services.now();
    const routes = chooseRoutes(model, request, services.routeCooldowns, routesAt);
    if (routes.length === 0) throw allRoutesCoolingDown(model, services.routeCooldowns, routesAt);
    await tryRoutes(
      routes,
      services.routeCooldowns,
      async (route, span) => {
        const upstream = services.upstreams.get(route.provider.name)!;
        const adapter = upstream.adapter;
        if (!adapter) throw new Error(`provider "${upstream.name}" (kind ${upstream.kind}) cannot serve chat`);
        const target: UpstreamTarget = { model: route.model, baseUrl: upstream.baseUrl, apiKey: upstream.apiKey, capabilities, maxOutputTokens, search: model.type === 'search' };
        routeUsed = { provider: route.provider.name, model: route.model };
        input.log.provider = route.provider.name;
        routeTaken = route;
        attemptStartedAt = performance.now();
        accumulator = new ResultAccumulator();
        pending = [];
        span.maxTokens(maxOutputTokens);
        if (trace.capturesContent) span.input(request);
        const parser = adapter.createStreamParser(target, request);
        try {
          const readEvents = await openEventStream(upstream, adapter, adapter.buildRequest({ ...request, model: model.id }, target), abort.signal);
          await readEvents((event) => handle(parser.push(event)));
        } catch (error) {
          // A call cut because the client left fails as that (ClientGoneError), not as the
          // connection error the transport reports: its span says so, and nothing else reads it
          // otherwise (the failure below is the abort's reason either way).
          throw abort.signal.aborted ? abort.signal.reason : error;
        }
        handle(parser.end());
        if (trace.recording) span.answered({ id: accumulator.id, model: accumulator.model, finishReason: accumulator.finishReason, usage: accumulator.usage });
        if (trace.capturesContent) span.output(accumulator.result({ created }));
      },
      // Another route may serve it only if nothing was produced and the failure is transient.
      (error) => !producedOutput && !encoder && error instanceof UpstreamError && error.retryable && !abort.signal.aborted,
      services.now,
      // A call cut because the client left is no upstream failure: only its duration counts.
      (attempt) =>
        services.upstreamObserver.attempted(
          { operation: 'chat', model: model.id, requestId },
          abort.signal.aborted ? { route: attempt.route, attempt: attempt.attempt, seconds: attempt.seconds } : attempt,
        ),
      trace,
    );
  } catch (error) {
    failure = abort.signal.aborted ? abort.signal.reason : error;
  } finally {
    clearInterval(keepAlive);
  }
  // Latency is measured to the end of the upstream exchange (an abort included), before the
  // ledger work that follows.
  const upstreamDoneAt = performance.now();
  if (firstOutputAt !== undefined && routeTaken) {
    services.upstreamObserver.timeToFirstToken(services.upstreamObserver.seriesOfRoute(routeTaken, model.id), (firstOutputAt - attemptStartedAt) / 1000);
  }

  const { usage, estimated } = meter(request, accumulator, { failed: failure !== undefined, producedOutput });
  const status = !failure ? 'completed' : failure instanceof ClientGoneError ? 'aborted' : 'failed';
  const finalUsage = usage ?? emptyUsage;
  if (usage) services.metrics.countTokens(model.id, usage);
  const record = {
    request_id: requestId,
    account_id: apiKey.accountId,
    key_id: apiKey.id,
    endpoint: dialect.name,
    model: model.id,
    provider: routeUsed?.provider ?? '',
    upstream_model: routeUsed?.model ?? '',
    status,
    input_tokens: finalUsage.inputTokens,
    cached_input_tokens: finalUsage.cachedInputTokens,
    cache_write_input_tokens: finalUsage.cacheWriteInputTokens,
    output_tokens: finalUsage.outputTokens,
    reasoning_tokens: finalUsage.reasoningTokens,
    estimated,
    latency_ms: Math.round(upstreamDoneAt - started),
    ttft_ms: firstOutputAt === undefined ? null : Math.round(firstOutputAt - started),
    finish_reason: accumulator.finishReason ?? null,
    created_at: services.now(), // the process clock, as the ledger row of its charge
  } as const;
  let chargedUnits = 0n;
  // A charged request's usage record is written by the settle itself (one commit with the
  // charge: a process killed after the settle cannot leave a charge without its record). A
  // settle or release the database cannot take now is retried in the background
  // (pending-settles.ts): the response goes out either way, the charge lands later.
  const settleSpan = trace.settle();
  try {
    if (usage && hold) {
      const settlement = await services.settles.settle(hold, chargeForUsage(prices, usage), { requestId, model: model.id, usage: record });
      chargedUnits = settlement.chargedUnits;
      if (settlement.capped) services.logger.warn({ request_id: requestId, model: model.id, usage }, 'charge capped at the hold: the input estimate was too low');
    } else {
      if (hold) await services.settles.release(hold.id);
      // Nothing charged: the record goes with the batched ones.
      services.usageRecords.record({ ...record, cost_units: 0 });
    }
  } catch (error) {
    settleSpan.end(error);
    throw error;
  }
  settleSpan.amount(chargedUnits);
  if (usage) settleSpan.billed(usage, estimated);
  settleSpan.end();
  outcome.chargedUnits = chargedUnits;
  // The key's tokens per minute count what the call used (cached input included), before the
  // answer's end goes out: the client's next request sees them.
  if (usage) await services.keyLimits.countTokens(apiKey, usage.inputTokens + usage.outputTokens);

  if (failure) {
    if (failure instanceof ClientGoneError) return outcome;
    if (!encoder) throw upstreamFailure(failure, services.upstreamObserver);
    // After the first byte: the dialect's in-stream error, then close.
    const apiError = upstreamFailure(failure, services.upstreamObserver);
    if (apiError instanceof GatewayError) input.log.failure = apiError; // the request log's error of a 200 that failed midway
    const type = apiError instanceof GatewayError && apiError.status < 500 ? 'invalid_request_error' : 'api_error';
    if (!(apiError instanceof GatewayError)) services.logger.error({ err: failure, request_id: requestId }, 'chat stream failed');
    sink.write(encoder.error(apiError instanceof GatewayError ? apiError.message : 'The response failed midway.', type));
    sink.end();
    return outcome;
  }
  const result = accumulator.result({ created, usage: finalUsage, usageEstimated: estimated });
  if (request.stream) {
    if (!encoder) {
      encoder = dialect.createStreamEncoder(request, { id: result.id || requestId, created });
      sink.startStream();
    }
    sink.write(encoder.end(finalUsage));
    sink.end();
  } else {
    sink.sendJson(dialect.encodeResult({ ...result, id: result.id || requestId }, request));
  }
  return outcome;
}
