// How an async job ends: completed (its charge settled through the charge envelope, with its
// usage record), failed or cancelled (its hold released). One transaction with the job row's
// terminal update (job-store.ts finish): the money, the history line and the webhook land
// together or not at all, and only for the first end — a second runner, or an operator's cancel
// racing a completion, finds the job ended and writes nothing.
import type { Knex } from 'knex';
import { releaseJob, settleJob } from '../billing/charge-envelope.js';
import type { PendingSettles } from '../billing/pending-settles.js';
import type { UsageFacts } from '../billing/usage-record.js';
import type { Job, JobResult } from '../jobs/job.js';
import { publicJobObject } from '../jobs/job-object.js';
import type { JobEnd, JobStore } from '../jobs/job-store.js';
import { JobAlreadyEndedError, JobNotFoundError } from '../jobs/present.js';
import { enqueueWebhook } from '../jobs/webhooks.js';

export interface JobEndServices {
  readonly jobs: JobStore;
  readonly settles: PendingSettles;
  readonly config: { readonly storage: { readonly tempTtlMs: number } };
  readonly now: () => number;
}

/** The whole seconds a job's charge is for (video, or audio for music), on its usage record. */
export interface JobMediaSeconds {
  readonly videoSeconds?: number;
  readonly audioSeconds?: number;
}

/** A background response's usage record: its tokens and where it was answered. */
export type JobTokenUsage = Pick<UsageFacts, 'inputTokens' | 'cachedInputTokens' | 'cacheWriteInputTokens' | 'outputTokens' | 'reasoningTokens' | 'estimated' | 'provider' | 'upstreamModel' | 'finishReason'>;

/** Completed: charge `actualUnits` (capped at the hold), record the files. False when the job had already ended or the lease was lost. */
export async function completeJob(
  services: JobEndServices,
  job: Job,
  owner: string,
  outcome: { actualUnits: bigint; result: JobResult; upstreamStatus?: string; mediaSeconds?: JobMediaSeconds; usage?: JobTokenUsage },
): Promise<boolean> {
  const end: JobEnd = { status: 'completed', result: outcome.result, upstreamStatus: outcome.upstreamStatus };
  const ended = await services.jobs.finish(job, owner, end, (trx) => chargeCompleted(services, trx, job, outcome.actualUnits, { ...outcome.mediaSeconds, ...outcome.usage }), webhookOf(services));
  return ended !== undefined;
}

/** Failed (or cancelled): the hold is released, nothing is charged. False when the job had already ended or the lease was lost. */
export async function failJob(
  services: JobEndServices,
  job: Job,
  owner: string | null,
  outcome: { status?: 'failed' | 'cancelled'; code: string; message: string; upstreamStatus?: string },
): Promise<boolean> {
  const end: JobEnd = { status: outcome.status ?? 'failed', errorCode: outcome.code, errorMessage: outcome.message, upstreamStatus: outcome.upstreamStatus };
  const ended = await services.jobs.finish(job, owner, end, (trx) => releaseHeld(services, trx, job), webhookOf(services));
  return ended !== undefined;
}

/**
 * An operator cancels a queued or running job (`gateway jobs cancel`, POST
 * /admin/v1/jobs/:id/cancel): its hold is released, nothing is charged, and the `job.cancel`
 * audit row is written with the change. JobNotFoundError for an unknown id; JobAlreadyEndedError
 * when it had already ended (nothing changed).
 */
export async function cancelJob(services: JobEndServices, id: string, actor: string): Promise<Job> {
  const job = await services.jobs.get(null, id);
  if (!job) throw new JobNotFoundError(id);
  const end: JobEnd = {
    status: 'cancelled',
    errorCode: 'cancelled',
    errorMessage: 'the job was cancelled by the operator',
    audit: { actor, action: 'job.cancel', target: job.id, accountId: job.accountId, details: { kind: job.kind, model: job.model, status_before: job.status } },
  };
  const ended = await services.jobs.finish(job, null, end, (trx) => releaseHeld(services, trx, job), webhookOf(services));
  if (ended) return ended;
  const now = (await services.jobs.get(null, id))!;
  throw new JobAlreadyEndedError(now.id, now.status);
}

async function chargeCompleted(services: JobEndServices, trx: Knex.Transaction, job: Job, actualUnits: bigint, measured: JobMediaSeconds & JobTokenUsage): Promise<bigint> {
  if (!job.holdId) return 0n;
  const now = services.now();
  const owner = { requestId: job.requestId, accountId: job.accountId, keyId: job.keyId, model: job.model };
  const facts = {
    ...measured,
    endpoint: job.endpoint,
    provider: measured.provider ?? job.provider ?? '',
    upstreamModel: measured.upstreamModel ?? job.upstreamModel ?? '',
    latencyMs: job.startedAt === null ? 0 : Math.max(0, now - job.startedAt),
  };
  return settleJob(services.settles, trx, job.holdId, actualUnits, owner, facts, now);
}

async function releaseHeld(services: JobEndServices, trx: Knex.Transaction, job: Job): Promise<bigint> {
  if (job.holdId) await releaseJob(services.settles, trx, job.holdId);
  return 0n;
}

/** The job's webhook (its public object as it ended), queued in the end's transaction: one delivery per job. */
const webhookOf =
  (services: JobEndServices) =>
  async (trx: Knex.Transaction, ended: Job): Promise<void> => {
    if (!ended.webhookUrl) return;
    const payload = publicJobObject(ended, { fileTtlMs: services.config.storage.tempTtlMs });
    await enqueueWebhook(trx, { jobId: ended.id, accountId: ended.accountId, url: ended.webhookUrl, payload }, services.now());
  };
