// The durable side of async jobs. Every state change is one conditional statement or one
// transaction, so that with any number of runners (and `kill -9` at any point):
// - a job is created together with its hold and its history line (one transaction), once
//   per idempotency key;
// - a runner works on a job only while it holds the job's lease (claimed by one UPDATE —
//   PostgreSQL `FOR UPDATE SKIP LOCKED`, SQLite a single write statement, which takes the
//   database's write lock for its whole duration like BEGIN IMMEDIATE);
// - a job ends once: the terminal update is conditional on the job still being active, and
//   what its caller writes with the end (the settle or release of its hold through the charge
//   envelope, its webhook) and its generation record are written in the same transaction — all
//   of them or none.
// The store writes job rows; the money and the webhooks are the job steps' (src/pipeline/job-end.ts).
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { writeAudit, type AuditEntry } from '../audit/audit-log.js';
import type { Hold } from '../billing/ledger.js';
import { unitsToSql } from '../util/money.js';
import { isPostgres } from '../db/dialect.js';
import { isUniqueViolation } from '../db/errors.js';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { JobKind, JobStatus } from '../model/jobs.js';
import type { Generations, GenerationType } from '../storage/generations.js';
import { newId } from '../util/ids.js';
import { activeStatuses, type Job, jobFromRow, type JobResult, terminalStatuses } from './job.js';

export class IdempotencyConflictError extends DomainError {
  override readonly catalogCode = 'idempotency_key_reused';

  constructor(readonly key: string) {
    super(`idempotency_key "${key}" was already used with a different request body`);
    this.name = 'IdempotencyConflictError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, this.message, { param: 'idempotency_key' });
  }
}

export interface NewJob {
  readonly kind: JobKind;
  /** Idempotency scope and id prefix: "videos", "videos/upscale", "audio/music". */
  readonly endpoint: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly model: string;
  /** The validated request as the runner will send it (file inputs by file id). */
  readonly request: Record<string, unknown>;
  /** What identifies "the same request" for idempotency (defaults to `request`). */
  readonly identity?: unknown;
  readonly idempotencyKey?: string;
  /** The amount the job's hold is for (its `hold` places it). */
  readonly holdUnits: bigint;
  readonly webhookUrl?: string;
  readonly requestId: string;
  readonly prompt: string | null;
  readonly description: string;
}

export interface JobStoreOptions {
  readonly db: Knex;
  readonly generations: Generations;
  /** A job not finished this long after creation fails. */
  readonly deadlineMs: number;
  /** How long a claim lasts without being renewed. */
  readonly leaseMs: number;
  readonly now?: () => number;
}

/** Where a terminal job's generation record goes. */
/** A background response is a chat answer: like any chat, it has no generation record. */
const generationTypes: Record<JobKind, GenerationType | undefined> = { video: 'video', video_upscale: 'video', music: 'music', response: undefined };

const idPrefixes: Record<JobKind, string> = { video: 'video', video_upscale: 'video', music: 'music', response: 'resp' };

/** A stable hash of a JSON value: object keys sorted, so field order does not matter. */
export function canonicalHash(value: unknown): string {
  const canonical = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(canonical);
    if (item && typeof item === 'object') {
      return Object.fromEntries(
        Object.keys(item)
          .sort()
          .filter((key) => (item as Record<string, unknown>)[key] !== undefined)
          .map((key) => [key, canonical((item as Record<string, unknown>)[key])]),
      );
    }
    return item;
  };
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('hex');
}

export class JobStore {
  private readonly db: Knex;
  private readonly now: () => number;

  constructor(private readonly options: JobStoreOptions) {
    this.db = options.db;
    this.now = options.now ?? Date.now;
  }

  /**
   * Creates the job and its hold in one transaction, or — for an idempotency key already used
   * on this endpoint by this account — returns the job it created (`created: false`), or
   * throws IdempotencyConflictError when the body differs. Concurrent duplicates race on the
   * unique index: the losers roll back (their hold with them) and return the winner's job.
   */
  async create(input: NewJob, placeHold: (trx: Knex.Transaction) => Promise<Hold | undefined>): Promise<{ job: Job; created: boolean }> {
    const requestHash = canonicalHash(input.identity ?? input.request);
    if (input.idempotencyKey !== undefined) {
      const existing = await this.findByIdempotencyKey(input, requestHash);
      if (existing) return { job: existing, created: false };
    }
    const now = this.now();
    const id = newId(idPrefixes[input.kind]);
    try {
      await this.db.transaction(async (trx) => {
        const hold = await placeHold(trx);
        await trx('jobs').insert({
          id,
          kind: input.kind,
          account_id: input.accountId,
          key_id: input.keyId,
          model: input.model,
          status: 'queued',
          progress: 0,
          request: JSON.stringify(input.request),
          request_hash: requestHash,
          idempotency_key: input.idempotencyKey ?? null,
          endpoint: input.endpoint,
          hold_id: hold?.id ?? null,
          hold_units: unitsToSql(input.holdUnits),
          charged_units: 0,
          polls: 0,
          next_run_at: now,
          deadline_at: now + this.options.deadlineMs,
          webhook_url: input.webhookUrl ?? null,
          request_id: input.requestId,
          created_at: now,
          updated_at: now,
        });
        // Its line in the generation history, queued, in the same transaction.
        const type = generationTypes[input.kind];
        if (type === undefined) return;
        await this.options.generations.record(
          [{ accountId: input.accountId, keyId: input.keyId, type, model: input.model, prompt: input.prompt, chargedUnits: 0n, fileIds: [], requestId: input.requestId, status: 'queued', jobId: id }],
          { within: trx },
        );
      });
    } catch (error) {
      if (input.idempotencyKey !== undefined && isUniqueViolation(error)) {
        const existing = await this.findByIdempotencyKey(input, requestHash);
        if (existing) return { job: existing, created: false };
      }
      throw error;
    }
    return { job: (await this.get(null, id))!, created: true };
  }

  private async findByIdempotencyKey(input: NewJob, requestHash: string): Promise<Job | undefined> {
    const row = await this.db('jobs').where({ account_id: input.accountId, endpoint: input.endpoint, idempotency_key: input.idempotencyKey }).first();
    if (!row) return undefined;
    const job = jobFromRow(row);
    if (job.requestHash !== requestHash) throw new IdempotencyConflictError(input.idempotencyKey!);
    return job;
  }

  /** The job, if it belongs to `accountId` (null: any account, for the CLI). */
  async get(accountId: string | null, id: string): Promise<Job | undefined> {
    const query = this.db('jobs').where({ id });
    if (accountId !== null) query.andWhere({ account_id: accountId });
    const row = await query.first();
    return row ? jobFromRow(row) : undefined;
  }

  /**
   * Marks a finished job deleted by its owner (DELETE /v1/videos/{id}); false when it is not
   * there to delete (unknown, another account's, already deleted, or still running).
   */
  async markDeleted(accountId: string, id: string): Promise<boolean> {
    const changed = await this.db('jobs').where({ id, account_id: accountId }).whereNull('deleted_at').whereIn('status', terminalStatuses).update({ deleted_at: this.now() });
    return changed > 0;
  }

  async list(filter: { accountId?: string; status?: JobStatus; kind?: JobKind[]; limit: number }): Promise<Job[]> {
    const query = this.db('jobs').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit);
    if (filter.accountId) query.where({ account_id: filter.accountId });
    if (filter.status) query.where({ status: filter.status });
    if (filter.kind) query.whereIn('kind', filter.kind);
    return (await query).map(jobFromRow);
  }

  /**
   * One page of an account's jobs of some kinds, by creation (then id), after the job `afterId`
   * (OpenAI's list cursor: the last id of the previous page). Undefined when `afterId` is not
   * one of these jobs.
   */
  async page(accountId: string, kinds: readonly JobKind[], options: { afterId?: string; limit: number; order: 'asc' | 'desc' }): Promise<{ jobs: Job[]; hasMore: boolean } | undefined> {
    const query = this.db('jobs').where({ account_id: accountId }).whereIn('kind', kinds).whereNull('deleted_at');
    if (options.afterId !== undefined) {
      // A job deleted since the previous page still marks its place, so the next page follows on.
      const after = await this.db('jobs').where({ account_id: accountId, id: options.afterId }).whereIn('kind', kinds).first();
      if (!after) return undefined;
      const beyond = options.order === 'desc' ? '<' : '>';
      query.andWhere((where) => where.where('created_at', beyond, after.created_at).orWhere((same) => same.where('created_at', after.created_at).andWhere('id', beyond, after.id)));
    }
    const rows = await query.orderBy('created_at', options.order).orderBy('id', options.order).limit(options.limit + 1);
    return { jobs: rows.slice(0, options.limit).map(jobFromRow), hasMore: rows.length > options.limit };
  }

  /**
   * Claims up to `limit` active jobs that are due and not leased by a live runner. One
   * statement: on PostgreSQL the candidate rows are locked with SKIP LOCKED so concurrent
   * runners pick different jobs; on SQLite the statement holds the write lock throughout.
   */
  async claim(owner: string, limit: number): Promise<Job[]> {
    if (limit <= 0) return [];
    const now = this.now();
    const candidates = this.db('jobs')
      .select('id')
      .whereIn('status', activeStatuses)
      .andWhere('next_run_at', '<=', now)
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .orderBy('next_run_at')
      .limit(limit);
    if (isPostgres(this.db)) candidates.forUpdate().skipLocked();
    const rows: Record<string, unknown>[] = await this.db('jobs')
      .whereIn('id', candidates)
      // Re-checked on the outer rows: a SQLite subquery and its UPDATE are one atomic statement,
      // and on PostgreSQL a row that changed after the subquery's snapshot is re-evaluated here.
      .whereIn('status', activeStatuses)
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .update({ lease_owner: owner, lease_until: now + this.options.leaseMs, updated_at: now })
      .returning('*');
    return rows.map(jobFromRow);
  }

  /**
   * Records, before a submit goes upstream, where it goes and with which idempotency key
   * (`submitting`), and counts the send. Committed before the call: a runner that dies during
   * it leaves a job the next runner reconciles instead of sending blindly again. False when
   * the lease was lost (another runner has the job now: send nothing).
   */
  async markSubmitting(job: Job, owner: string, submission: { provider: string; upstreamModel: string; key: string }): Promise<boolean> {
    const now = this.now();
    const updated = await this.db('jobs')
      .where({ id: job.id, lease_owner: owner })
      .whereIn('status', activeStatuses)
      .whereNull('upstream_id')
      .update({
        submit_state: 'submitting',
        submit_key: submission.key,
        provider: submission.provider,
        upstream_model: submission.upstreamModel,
        submits: this.db.raw('submits + 1'),
        updated_at: now,
      });
    return updated > 0;
  }

  /**
   * A job the runner works on itself (a background response) starts a run: in progress, and the
   * run counted (in `submits`), so that one interrupted again and again can be failed. False
   * when the lease was lost.
   */
  async markRunning(job: Job, owner: string): Promise<boolean> {
    const now = this.now();
    const updated = await this.db('jobs')
      .where({ id: job.id, lease_owner: owner })
      .whereIn('status', activeStatuses)
      .update({ status: 'in_progress', started_at: job.startedAt ?? now, submits: this.db.raw('submits + 1'), updated_at: now });
    return updated > 0;
  }

  /**
   * Stores progress and when to look again, and gives up the lease. False when the lease was
   * lost. Storing `upstreamId` marks the job `submitted`; `submitState: null` says a submit
   * was refused outright (nothing was made upstream), so the next attempt starts afresh.
   */
  async reschedule(
    job: Job,
    owner: string,
    patch: { status?: JobStatus; progress?: number; upstreamStatus?: string | null; upstreamId?: string; provider?: string; upstreamModel?: string; submitState?: null; nextRunAt: number; polled?: boolean },
  ): Promise<boolean> {
    // PostgreSQL refuses a fraction for the bigint column and SQLite would store it as a REAL:
    // refused here on both, so a caller's bug shows in every test run, not only on PostgreSQL.
    if (!Number.isSafeInteger(patch.nextRunAt)) throw new TypeError(`job ${job.id}: next_run_at must be whole milliseconds, got ${patch.nextRunAt}`);
    const now = this.now();
    const updated = await this.db('jobs')
      .where({ id: job.id, lease_owner: owner })
      .whereIn('status', activeStatuses)
      .update({
        ...(patch.status ? { status: patch.status } : {}),
        ...(patch.progress !== undefined ? { progress: patch.progress } : {}),
        ...(patch.upstreamStatus !== undefined ? { upstream_status: patch.upstreamStatus } : {}),
        ...(patch.upstreamId !== undefined ? { upstream_id: patch.upstreamId, started_at: now, submit_state: 'submitted' } : {}),
        ...(patch.submitState === null ? { submit_state: null } : {}),
        ...(patch.provider !== undefined ? { provider: patch.provider } : {}),
        ...(patch.upstreamModel !== undefined ? { upstream_model: patch.upstreamModel } : {}),
        ...(patch.polled ? { polls: this.db.raw('polls + 1') } : {}),
        next_run_at: patch.nextRunAt,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      });
    return updated > 0;
  }

  /** Keeps the lease alive while a step runs (the runner's heartbeat). False when another runner (or the operator) has the job now. */
  /** Clears the leases `owner` holds on these jobs (a stopping runner whose steps ended storing nothing): claimable at once. */
  async releaseLeases(jobIds: readonly string[], owner: string): Promise<number> {
    if (jobIds.length === 0) return 0;
    return this.db('jobs').whereIn('id', jobIds).where({ lease_owner: owner }).whereIn('status', activeStatuses).update({ lease_owner: null, lease_until: null, updated_at: this.now() });
  }

  async renewLease(job: Job, owner: string): Promise<boolean> {
    const now = this.now();
    const updated = await this.db('jobs').where({ id: job.id, lease_owner: owner }).whereIn('status', activeStatuses).update({ lease_until: now + this.options.leaseMs, updated_at: now });
    return updated > 0;
  }

  /**
   * Ends an active job once: the conditional terminal update, then — in the same transaction —
   * `endWith` (the caller's money: the settle or release of the job's hold; it answers what was
   * charged), the charge on the row and the history line, then `after` (the webhook) with the
   * job as it ended. Undefined when the job had already ended or the lease was lost.
   */
  async finish(
    job: Job,
    owner: string | null,
    outcome: JobEnd,
    endWith: (trx: Knex.Transaction) => Promise<bigint>,
    after?: (trx: Knex.Transaction, ended: Job) => Promise<void>,
  ): Promise<Job | undefined> {
    const now = this.now();
    let finished: Job | undefined;
    await this.db.transaction(async (trx) => {
      const guard = trx('jobs').where({ id: job.id }).whereIn('status', activeStatuses);
      if (owner !== null) guard.andWhere({ lease_owner: owner });
      const updated = await guard.update({
        status: outcome.status,
        progress: outcome.status === 'completed' ? 100 : job.progress,
        result: outcome.result ? JSON.stringify(outcome.result) : null,
        error_code: outcome.errorCode ?? null,
        error_message: outcome.errorMessage ?? null,
        ...(outcome.upstreamStatus !== undefined ? { upstream_status: outcome.upstreamStatus } : {}),
        completed_at: now,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      });
      if (updated === 0) return; // already ended elsewhere (or the lease moved on): nothing to do
      if (outcome.audit) await writeAudit(trx, outcome.audit, now);
      const chargedUnits = await endWith(trx);
      if (chargedUnits > 0n) await trx('jobs').where({ id: job.id }).update({ charged_units: unitsToSql(chargedUnits) });
      await this.options.generations.updateForJob(job.id, { status: outcome.status, chargedUnits, fileIds: outcome.result?.fileIds ?? [] }, { within: trx });
      finished = jobFromRow(await trx('jobs').where({ id: job.id }).first());
      await after?.(trx, finished);
    });
    return finished;
  }
}

/** How a job ends, as its row records it. */
export interface JobEnd {
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly result?: JobResult;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly upstreamStatus?: string;
  /** An operator's change: its audit row, written only when the job did end here. */
  readonly audit?: AuditEntry;
}
