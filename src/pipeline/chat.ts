// The chat pipeline: the only place that sequences a chat request.
//   decode (dialect) → resolve the model, scope and capability checks (chat-model.ts) →
//   quote and hold (chat-hold.ts, the charge envelope) → upstream, always streamed
//   (chat-upstream.ts), relayed to the client as it comes (chat-relay.ts) → meter → settle
//   (the envelope) → the answer's end, or its error.
// Money: nothing reaches an upstream without a hold; an upstream failure before any output
// releases it; a stream cut by the client or the upstream is charged for what was produced
// (upstream usage if it came, else counted from the text and flagged as estimated).
import type { ApiKey } from '../auth/api-keys.js';
import { assertKeyUsable } from '../auth/key-policy.js';
import type { ChargeServices } from '../billing/charge-envelope.js';
import { chargeForUsage } from '../billing/chat-pricing.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Dialect } from '../dialects/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import { emptyUsage, type Usage } from '../model/chat.js';
import type { Metrics } from '../observability/metrics.js';
import { noopRequestTrace, type RequestTrace } from '../observability/tracer.js';
import type { KeyLimits } from '../auth/key-limits.js';
import { chatHoldSize, openChatCharge, type ChatCharge } from './chat-hold.js';
import { resolveChatModel, type ResolvedChat } from './chat-model.js';
import { ChatRelay } from './chat-relay.js';
import { exchangeWithUpstream, type ChatExchangeOutcome, type ChatUpstreamServices } from './chat-upstream.js';
import { meter } from './meter.js';
import type { PrefixTracker } from './prefix-tracker.js';
import type { ReturnedItems } from './returned-items.js';
import { ClientGoneError, type ResponseSink } from './sink.js';
import { upstreamFailure } from './upstream-failure.js';

export { capabilitiesOf, resolveChatModel } from './chat-model.js';

/** What the chat pipeline uses of a serving process's services. */
export interface ChatServices extends ChargeServices, ChatUpstreamServices {
  readonly catalog: Catalog;
  readonly config: ChargeServices['config'] & { readonly server: { readonly streamKeepAliveMs: number } };
  readonly prefixTracker: Pick<PrefixTracker, 'cachedTokens'>;
  readonly returnedItems: Pick<ReturnedItems, 'resolve' | 'remember'>;
  readonly metrics: Pick<Metrics, 'countTokens'>;
  readonly keyLimits: Pick<KeyLimits, 'countTokens'>;
}

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

/** Names an output budget served lower than asked, because the model's limit is lower: `<requested>-><used>`. */
export const maxTokensClampedHeader = 'x-gateway-max-tokens-clamped';

export interface ChatOutcome {
  model: string;
  chargedUnits: bigint;
}

export async function runChat(services: ChatServices, input: ChatInput): Promise<ChatOutcome> {
  const trace = input.trace ?? noopRequestTrace;
  trace.operation('chat', 'chat');
  const started = performance.now();
  const { resolved, key } = await resolveForKey(services, input);
  input.log.model = resolved.model.id;
  const held = await holdFor(services, input, resolved, key, trace);
  if (resolved.maxOutputTokensClampedFrom !== undefined) {
    input.sink.setHeader(maxTokensClampedHeader, `${resolved.maxOutputTokensClampedFrom}->${held.maxOutputTokens}`);
  }
  const relay = new ChatRelay(
    input.dialect,
    resolved.request,
    input.sink,
    input.requestId,
    // Gateway-tracked prompt cache, for upstreams that cache but do not say so.
    resolved.model.config.capabilities.prompt_cache ? await services.prefixTracker.cachedTokens(resolved.model.id, resolved.request) : 0,
    services.config.server.streamKeepAliveMs,
  );
  const abort = new AbortController();
  input.sink.onClose(() => abort.abort(new ClientGoneError()));
  const exchange = await exchangeWithUpstream(services, { ...resolved, maxOutputTokens: held.maxOutputTokens, requestId: input.requestId, relay, abort, trace, log: input.log });
  // Latency is measured to the end of the upstream exchange (an abort included), before the ledger work that follows.
  const upstreamDoneAt = performance.now();
  if (relay.firstOutputAt !== undefined && exchange.route) {
    services.upstreamObserver.timeToFirstToken(services.upstreamObserver.seriesOfRoute(exchange.route, resolved.model.id), (relay.firstOutputAt - exchange.attemptStartedAt) / 1000);
  }
  const billed = await meterAndSettle(services, input, resolved, held, relay, exchange, { started, upstreamDoneAt });
  await answer(services, input, resolved, relay, exchange.failure, billed);
  return { model: resolved.model.id, chargedUnits: billed.chargedUnits };
}

/**
 * The model for this key. The key may be a cached copy older than an update (models, scopes): a
 * refusal on those grounds is confirmed on the key as it is now before it is answered.
 */
async function resolveForKey(services: ChatServices, input: ChatInput): Promise<{ resolved: ResolvedChat; key: ApiKey }> {
  // References to items of earlier answers (Responses item_reference) become those items first.
  const body = await services.returnedItems.resolve(input.dialect, input.apiKey.accountId, input.body);
  const decoded = input.dialect.decodeRequest(body);
  try {
    return { resolved: resolveChatModel(services.catalog, input.dialect, decoded, input.apiKey, input.body), key: input.apiKey };
  } catch (error) {
    if (!(error instanceof GatewayError && (error.code === 'model_not_allowed' || error.code === 'insufficient_scope'))) throw error;
    const fresh = await services.apiKeys.refresh(input.apiKey.id);
    if (fresh.revision === input.apiKey.revision) throw error;
    assertKeyUsable(fresh, services.now(), input.address);
    return { resolved: resolveChatModel(services.catalog, input.dialect, decoded, fresh, input.body), key: fresh };
  }
}

/** The chat's hold, sized as a background response's is (chatHoldSize). */
function holdFor(services: ChatServices, input: ChatInput, resolved: ResolvedChat, key: ApiKey, trace: RequestTrace): Promise<ChatCharge> {
  return openChatCharge(services, resolved.request, resolved.model, chatHoldSize(resolved, String(input.dialect.locations.messages.at(-1))), key, {
    requestId: input.requestId,
    description: `${input.dialect.name} ${resolved.model.id}`,
    address: input.address,
    trace,
  });
}

/**
 * Bills what was produced and closes the charge. A charged request's usage record is written
 * by the settle itself (one commit with the charge); a settle the database cannot take now is
 * retried in the background (pending-settles.ts): the response goes out either way.
 */
async function meterAndSettle(
  services: ChatServices,
  input: ChatInput,
  { model, request }: ResolvedChat,
  { prices, charge }: ChatCharge,
  relay: ChatRelay,
  exchange: ChatExchangeOutcome,
  times: { started: number; upstreamDoneAt: number },
): Promise<Billed> {
  const { failure } = exchange;
  const { usage, estimated } = meter(request, relay.accumulator, { failed: failure !== undefined, producedOutput: relay.producedOutput });
  const status = !failure ? 'completed' : failure instanceof ClientGoneError ? 'aborted' : 'failed';
  const tokens = usage ?? emptyUsage;
  if (usage) services.metrics.countTokens(model.id, usage);
  const facts = {
    endpoint: input.dialect.name,
    provider: exchange.route?.provider.name,
    upstreamModel: exchange.route?.model,
    status,
    ...tokens,
    estimated,
    latencyMs: Math.round(times.upstreamDoneAt - times.started),
    ttftMs: relay.firstOutputAt === undefined ? null : Math.round(relay.firstOutputAt - times.started),
    finishReason: relay.accumulator.finishReason ?? null,
  } as const;
  let chargedUnits = 0n;
  if (usage) chargedUnits = (await charge.settle(chargeForUsage(prices, usage), facts, usage)).chargedUnits;
  else await charge.release(facts);
  // The key's tokens per minute count what the call used (cached input included), before the
  // answer's end goes out: the client's next request sees them.
  if (usage) await services.keyLimits.countTokens(charge.key, usage.inputTokens + usage.outputTokens);
  return { chargedUnits, usage: tokens, estimated };
}

interface Billed {
  readonly chargedUnits: bigint;
  readonly usage: Usage;
  readonly estimated: boolean;
}

/** The answer's end; or, for a failure, the JSON error (nothing sent yet) or the dialect's in-stream error. */
async function answer(services: ChatServices, input: ChatInput, { request }: ResolvedChat, relay: ChatRelay, failure: unknown, billed: Billed): Promise<void> {
  if (!failure) {
    const result = relay.result(billed.usage, billed.estimated);
    if (input.dialect.itemReferences) {
      // Kept before the end goes out: the client's next request may refer to these items at once.
      const onFailure = (error: unknown) => services.logger.warn({ err: error, request_id: input.requestId }, "an answer's output items could not be kept for later references");
      await services.returnedItems.remember(input.dialect, input.apiKey.accountId, result, request, onFailure);
    }
    relay.finish(result);
    return;
  }
  if (failure instanceof ClientGoneError) return;
  const apiError = upstreamFailure(failure, services.upstreamObserver);
  if (!relay.committed) throw apiError;
  // After the first byte: the request log's error of a 200 that failed midway.
  if (apiError instanceof GatewayError) input.log.failure = apiError;
  else services.logger.error({ err: failure, request_id: input.requestId }, 'chat stream failed');
  const type = apiError instanceof GatewayError && apiError.status < 500 ? 'invalid_request_error' : 'api_error';
  relay.fail(apiError instanceof GatewayError ? apiError.message : 'The response failed midway.', type);
}
