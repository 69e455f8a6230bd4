// What the `jobs` commands print about a job: the public object plus the operator's view.
import { formatRub } from '../util/money.js';
import { DomainError } from '../errors/domain-error.js';
import type { Job } from './job.js';
import { publicJobObject } from './job-object.js';

export class JobNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(id: string) {
    super(`no job "${id}"`);
    this.name = 'JobNotFoundError';
  }
}

/** `jobs cancel` on a job that had already ended: nothing changed, and the operator is told so on stderr. */
export class JobAlreadyEndedError extends DomainError {
  override readonly catalogCode = 'job_already_ended';

  constructor(
    readonly jobId: string,
    readonly status: string,
  ) {
    super(`job ${jobId} had already ended (${status}); nothing changed`);
    this.name = 'JobAlreadyEndedError';
  }
}

/** A job in a list (`jobs ls`, GET /admin/v1/jobs): its public object plus kind and account. */
export function presentJobSummary(job: Job, fileTtlMs: number) {
  return { ...publicJobObject(job, { fileTtlMs }), kind: job.kind, account_id: job.accountId };
}

export function presentJob(job: Job, fileTtlMs: number): Record<string, unknown> {
  return {
    ...publicJobObject(job, { fileTtlMs }),
    kind: job.kind,
    account_id: job.accountId,
    key_id: job.keyId,
    internal_status: job.status,
    hold_id: job.holdId,
    hold_rub: formatRub(job.holdUnits),
    provider: job.provider,
    upstream_model: job.upstreamModel,
    upstream_id: job.upstreamId,
    upstream_status: job.upstreamStatus,
    submit_state: job.submitState,
    submit_key: job.submitKey,
    submits: job.submits,
    polls: job.polls,
    lease_owner: job.leaseOwner,
    deadline_at: Math.floor(job.deadlineAt / 1000),
    idempotency_key: job.idempotencyKey,
    webhook_url: job.webhookUrl,
    request_id: job.requestId,
    result: job.result,
  };
}
