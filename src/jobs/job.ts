// A job as the code sees it (the `jobs` row, typed), and its mapping from the row.
import { unitsFromSql } from '../util/money.js';
import type { JobKind, JobStatus } from '../model/jobs.js';

export const terminalStatuses: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];
export const activeStatuses: readonly JobStatus[] = ['queued', 'in_progress'];

/**
 * Where the job's submission stands (see migrations/20261125100000_job_submission.ts): null —
 * never sent; `submitting` — recorded before a submit went upstream, whose outcome is not known
 * yet; `submitted` — the upstream id is stored.
 */
export type SubmitState = 'submitting' | 'submitted' | null;

/** What the runner stored when the job completed. */
export interface JobResult {
  /** The job's output files, in order (one video, or the music tracks). */
  readonly fileIds: number[];
  readonly tracks?: { readonly durationSeconds: number | null; readonly title: string | null; readonly tags: string | null }[];
  /** Output size of a video upscale ("<w>x<h>"). */
  readonly size?: string;
  /** A background response's answer: the Responses object GET /v1/responses/{id} shows. */
  readonly response?: Record<string, unknown>;
}

export interface Job {
  readonly id: string;
  readonly kind: JobKind;
  readonly accountId: string;
  readonly keyId: string;
  readonly model: string;
  readonly status: JobStatus;
  readonly progress: number;
  /** The validated request as stored (kind-specific JSON). */
  readonly request: Record<string, unknown>;
  readonly requestHash: string;
  readonly idempotencyKey: string | null;
  readonly endpoint: string;
  readonly holdId: string | null;
  readonly holdUnits: bigint;
  readonly chargedUnits: bigint;
  readonly provider: string | null;
  readonly upstreamModel: string | null;
  readonly upstreamId: string | null;
  readonly upstreamStatus: string | null;
  readonly submitState: SubmitState;
  /** The idempotency key sent with the submit (re-sent unchanged after a crash). */
  readonly submitKey: string | null;
  /** Submit requests sent upstream for this job, re-sends included. */
  readonly submits: number;
  readonly polls: number;
  readonly leaseOwner: string | null;
  readonly nextRunAt: number;
  readonly deadlineAt: number;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly result: JobResult | null;
  readonly webhookUrl: string | null;
  readonly requestId: string;
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly completedAt: number | null;
  /** When the owner deleted it (DELETE /v1/videos/{id}): gone for the owner, kept for the ledger and the operator. */
  readonly deletedAt: number | null;
}

export type JobRow = Record<string, unknown>;

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export function jobFromRow(row: JobRow): Job {
  return {
    id: String(row.id),
    kind: row.kind as JobKind,
    accountId: String(row.account_id),
    keyId: String(row.key_id),
    model: String(row.model),
    status: row.status as JobStatus,
    progress: Number(row.progress),
    request: JSON.parse(String(row.request)) as Record<string, unknown>,
    requestHash: String(row.request_hash),
    idempotencyKey: (row.idempotency_key as string | null) ?? null,
    endpoint: String(row.endpoint),
    holdId: (row.hold_id as string | null) ?? null,
    holdUnits: unitsFromSql(row.hold_units as string | number),
    chargedUnits: unitsFromSql(row.charged_units as string | number),
    provider: (row.provider as string | null) ?? null,
    upstreamModel: (row.upstream_model as string | null) ?? null,
    upstreamId: (row.upstream_id as string | null) ?? null,
    upstreamStatus: (row.upstream_status as string | null) ?? null,
    submitState: (row.submit_state as SubmitState | undefined) ?? null,
    submitKey: (row.submit_key as string | null) ?? null,
    submits: Number(row.submits ?? 0),
    polls: Number(row.polls),
    leaseOwner: (row.lease_owner as string | null) ?? null,
    nextRunAt: Number(row.next_run_at),
    deadlineAt: Number(row.deadline_at),
    errorCode: (row.error_code as string | null) ?? null,
    errorMessage: (row.error_message as string | null) ?? null,
    result: row.result ? (JSON.parse(String(row.result)) as JobResult) : null,
    webhookUrl: (row.webhook_url as string | null) ?? null,
    requestId: String(row.request_id),
    createdAt: Number(row.created_at),
    startedAt: numberOrNull(row.started_at),
    completedAt: numberOrNull(row.completed_at),
    deletedAt: numberOrNull(row.deleted_at),
  };
}
