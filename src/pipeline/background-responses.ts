// Responses with `background: true` (OpenAI's background mode). The request is answered at once
// with a queued response object and runs as a job of kind `response`:
// - created: the model resolved and checked for the key as a chat is, and the chat's worst case
//   (input estimate + output budget) held with the job's row (jobs.ts, the charge envelope);
// - run by the job runner of this process or of a worker (job-step.ts): the same upstream
//   exchange as a chat (chat-upstream.ts), its answer collected instead of sent;
// - completed: charged for the usage reported (capped at the hold), the answer kept in the job's
//   result; failed (the upstream refused, or the answer broke off) or cancelled by the client:
//   the hold released, nothing charged, as any job.
// GET /v1/responses/{id} shows it at any point; POST /v1/responses/{id}/cancel cancels it.
import type { ApiKey } from '../auth/api-keys.js';
import type { Scope } from '../auth/scopes.js';
import { chargeForUsage, tokenPrices, worstCaseUnits } from '../billing/chat-pricing.js';
import type { CatalogModel } from '../catalog/catalog.js';
import { completedBackgroundResponse, encodeBackgroundResponse, foregroundBody, type BackgroundStatus } from '../dialects/responses/background.js';
import { responsesDialect } from '../dialects/responses/index.js';
import { encodeResponsesResult } from '../dialects/responses/result.js';
import type { Job } from '../jobs/job.js';
import { JobAlreadyEndedError } from '../jobs/present.js';
import type { ChatRequest } from '../model/chat.js';
import { noopRequestTrace } from '../observability/tracer.js';
import { invalid } from '../validation/zod-details.js';
import { resolveChatModel, resolveChatModelOfJob } from './chat-model.js';
import { ChatRelay } from './chat-relay.js';
import { exchangeWithUpstream } from './chat-upstream.js';
import { chatHoldSize } from './chat-hold.js';
import type { JobStep } from './job-context.js';
import { completeJob, failJob, type JobEndServices } from './job-end.js';
import { createJob, type JobServices } from './jobs.js';
import { meter } from './meter.js';
import type { ReturnedItems } from './returned-items.js';
import type { ResponseSink } from './sink.js';

/** A background response interrupted this many times (its runner died mid-answer) fails instead of running again. */
export const maxBackgroundRuns = 3;

export interface BackgroundResponseServices extends JobServices {
  readonly returnedItems: Pick<ReturnedItems, 'resolve'>;
}

/** What the job keeps: the body it runs (item references resolved) and the output budget held for. */
interface StoredRequest {
  readonly body: Record<string, unknown>;
  readonly outputBudget: number;
}

export async function createBackgroundResponse(
  services: BackgroundResponseServices,
  input: { body: Record<string, unknown>; apiKey: ApiKey; scope: Scope; requestId: string },
): Promise<{ job: Job; object: Record<string, unknown> }> {
  if (input.body.stream === true) {
    throw invalid(['body', 'stream'], 'a background response is not streamed: create it without stream and poll GET /v1/responses/{id}', true);
  }
  const body = (await services.returnedItems.resolve(responsesDialect, input.apiKey.accountId, foregroundBody(input.body))) as Record<string, unknown>;
  const resolved = resolveChatModel(services.catalog, responsesDialect, responsesDialect.decodeRequest(body), input.apiKey, input.body);
  const { model } = resolved;
  const { inputTokens, outputBudget } = chatHoldSize(resolved, 'body.input');
  const stored: StoredRequest = { body, outputBudget };
  const { job } = await createJob(services, {
    kind: 'response',
    endpoint: 'responses',
    model: model.id,
    request: stored as unknown as Record<string, unknown>,
    holdUnits: worstCaseUnits(tokenPrices(model.config.pricing), inputTokens, outputBudget),
    requestId: input.requestId,
    prompt: null,
    description: `responses ${model.id} (background)`,
    apiKey: input.apiKey,
    scope: input.scope,
  });
  return { job, object: backgroundResponseObject(job) };
}

/** The response object of a background response as it stands (GET /v1/responses/{id}). */
export function backgroundResponseObject(job: Job): Record<string, unknown> {
  if (job.status === 'completed' && job.result?.response) return job.result.response;
  const request = storedChatRequest(job);
  const createdAt = Math.floor(job.createdAt / 1000);
  const status: BackgroundStatus = job.status === 'completed' ? 'failed' : job.status;
  const error = status === 'failed' || status === 'cancelled' ? { code: job.errorCode ?? 'server_error', message: job.errorMessage ?? 'the response failed' } : null;
  return encodeBackgroundResponse(request, job.id, createdAt, status, error);
}

/** The client cancels its background response: the hold released, nothing charged. JobAlreadyEndedError when it had ended. */
export async function cancelBackgroundResponse(services: JobEndServices, job: Job): Promise<Record<string, unknown>> {
  if (job.status === 'cancelled') return backgroundResponseObject(job);
  const cancelled = await failJob(services, job, null, { status: 'cancelled', code: 'cancelled', message: 'the response was cancelled by the client' });
  const now = (await services.jobs.get(job.accountId, job.id)) ?? job;
  if (!cancelled && now.status !== 'cancelled') throw new JobAlreadyEndedError(now.id, now.status);
  return backgroundResponseObject(now);
}

/** The job runner's step for a background response: run it through the upstream, then end the job. */
export async function runBackgroundResponse(step: JobStep, job: Job, model: CatalogModel): Promise<void> {
  const { services, owner, lease } = step;
  if (job.submits >= maxBackgroundRuns) {
    await failJob(services, job, owner, { code: 'interrupted', message: `the response was interrupted ${job.submits} times before it finished; nothing was charged` });
    return;
  }
  if (!(await services.jobs.markRunning(job, owner))) return;
  const stored = job.request as unknown as StoredRequest;
  const { capabilities, request } = resolveChatModelOfJob(services.catalog, responsesDialect, responsesDialect.decodeRequest(stored.body), stored.body);
  const relay = new ChatRelay(responsesDialect, request, collectingSink, job.id, 0, services.config.server.streamKeepAliveMs);
  const abort = new AbortController();
  lease.signal.addEventListener('abort', () => abort.abort(lease.signal.reason), { once: true });
  const log: { provider?: string } = {};
  const exchange = await exchangeWithUpstream(services, { model, capabilities, request, maxOutputTokens: stored.outputBudget, requestId: job.requestId, relay, abort, trace: noopRequestTrace, log });
  relay.stop();
  if (lease.lost) return;
  const { usage, estimated } = meter(request, relay.accumulator, { failed: exchange.failure !== undefined, producedOutput: relay.producedOutput });
  if (exchange.failure !== undefined || !usage) {
    const message = exchange.failure instanceof Error ? exchange.failure.message : 'the upstream answered nothing';
    await failJob(services, job, owner, { code: 'upstream_error', message: `${message}; nothing was charged` });
    return;
  }
  // Its creation time is the job's, as the queued object said (not the run's, which may be much later).
  const answer = encodeResponsesResult({ ...relay.result(usage, estimated), id: job.id, created: Math.floor(job.createdAt / 1000) }, request);
  await completeJob(services, job, owner, {
    actualUnits: chargeForUsage(tokenPrices(model.config.pricing), usage),
    result: { fileIds: [], response: completedBackgroundResponse(answer, job.id) },
    usage: { ...usage, estimated, provider: exchange.route?.provider.name, upstreamModel: exchange.route?.model, finishReason: relay.accumulator.finishReason ?? null },
  });
}

function storedChatRequest(job: Job): ChatRequest {
  return responsesDialect.decodeRequest((job.request as unknown as StoredRequest).body);
}

/** Where a background answer goes: nowhere; it is read from the relay's accumulated result. */
const collectingSink: ResponseSink = {
  setHeader() {},
  startStream() {},
  write() {},
  end() {},
  abort() {},
  sendJson() {},
  onClose() {},
};
