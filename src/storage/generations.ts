// The generation history (GET /v1/generations): what was asked of which model, its status,
// what it cost and the files it produced. Each type (image, video, music) numbers its own
// entries 1, 2, 3…: the public id. Synchronous images are recorded completed; async jobs are
// recorded queued at submit and updated in their terminal transaction.
import type { Knex } from 'knex';
import { formatRub, unitsFromSql, unitsToSql } from '../util/money.js';
import { isUniqueViolation } from '../db/errors.js';
import { readIdCursor } from './cursor.js';

export const generationTypes = ['image', 'video', 'music'] as const;
export type GenerationType = (typeof generationTypes)[number];

export interface GenerationRecord {
  readonly accountId: string;
  readonly keyId: string;
  readonly type: GenerationType;
  readonly model: string;
  readonly prompt: string | null;
  readonly chargedUnits: bigint;
  readonly fileIds: readonly number[];
  readonly requestId: string;
  /** Default completed. */
  readonly status?: string;
  readonly jobId?: string | null;
}

export interface Generation {
  readonly rowId: number;
  readonly type: GenerationType;
  readonly number: number;
  readonly accountId: string;
  readonly keyId: string;
  readonly jobId: string | null;
  readonly model: string;
  readonly prompt: string | null;
  readonly status: string;
  readonly chargedUnits: bigint;
  readonly fileIds: readonly number[];
  readonly requestId: string;
  readonly createdAt: number;
}

function generationFromRow(row: Record<string, unknown>): Generation {
  return {
    rowId: Number(row.row_id),
    type: row.type as GenerationType,
    number: Number(row.number),
    accountId: String(row.account_id),
    keyId: String(row.key_id),
    jobId: (row.job_id as string | null) ?? null,
    model: String(row.model),
    prompt: (row.prompt as string | null) ?? null,
    status: String(row.status),
    chargedUnits: unitsFromSql(row.charged_units as string | number),
    fileIds: JSON.parse(String(row.file_ids)) as number[],
    requestId: String(row.request_id),
    createdAt: Number(row.created_at),
  };
}

/** The public JSON of a history entry. */
export function publicGeneration(generation: Generation): Record<string, unknown> {
  return {
    id: generation.number,
    object: 'generation',
    type: generation.type,
    model: generation.model,
    prompt: generation.prompt,
    status: generation.status === 'cancelled' ? 'failed' : generation.status,
    charged_rub: formatRub(generation.chargedUnits),
    created_at: Math.floor(generation.createdAt / 1000),
    file_ids: generation.fileIds,
    job_id: generation.jobId,
  };
}

/** Attempts at a number before giving up (only concurrent inserts of one type collide). */
const numberingAttempts = 8;

export class Generations {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records entries; returns their per-type numbers. A number is max+1 of its type, taken in
   * the INSERT itself; two concurrent inserts of one type collide on the unique (type, number)
   * index and the loser retries — inside a savepoint when `within` is a transaction, so the
   * caller's transaction survives the collision (PostgreSQL aborts a transaction on an error).
   */
  async record(records: readonly GenerationRecord[], options: { within?: Knex.Transaction } = {}): Promise<number[]> {
    const numbers: number[] = [];
    for (const record of records) numbers.push(await this.recordOne(record, options.within));
    return numbers;
  }

  private async recordOne(record: GenerationRecord, within: Knex.Transaction | undefined): Promise<number> {
    const values = [
      record.type,
      record.accountId,
      record.keyId,
      record.jobId ?? null,
      record.model,
      record.prompt,
      record.status ?? 'completed',
      unitsToSql(record.chargedUnits),
      JSON.stringify(record.fileIds),
      record.requestId,
      this.now(),
      record.type,
    ];
    for (let attempt = 1; ; attempt++) {
      try {
        // One INSERT … SELECT: on SQLite it takes the write lock with its first step (a read
        // followed by a write in one transaction could meet another writer and fail at once).
        return await (within ?? this.db).transaction(async (trx) => {
          const rows = await trx.raw(
            `INSERT INTO generations (type, number, account_id, key_id, job_id, model, prompt, status, charged_units, file_ids, request_id, created_at)
             SELECT ?, COALESCE(MAX(number), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM generations WHERE type = ? RETURNING number`,
            values,
          );
          return Number((Array.isArray(rows) ? rows : rows.rows)[0].number);
        });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= numberingAttempts) throw error;
      }
    }
  }

  /** The terminal state of an async job's entry. */
  async updateForJob(jobId: string, update: { status: string; chargedUnits?: bigint; fileIds?: readonly number[] }, options: { within?: Knex.Transaction } = {}): Promise<void> {
    await (options.within ?? this.db)('generations')
      .where({ job_id: jobId })
      .update({
        status: update.status,
        ...(update.chargedUnits !== undefined ? { charged_units: unitsToSql(update.chargedUnits) } : {}),
        ...(update.fileIds !== undefined ? { file_ids: JSON.stringify(update.fileIds) } : {}),
      });
  }

  /**
   * One type's entries, newest first. The cursor is the spec's: the id (per-type number) of the
   * previous page's last item, which is also `nextCursor`; an older opaque cursor holds a row id.
   */
  async list(accountId: string, options: { type: GenerationType; cursor?: string | number; limit: number }): Promise<{ items: Generation[]; nextCursor: number | null }> {
    const query = this.db('generations').where({ account_id: accountId, type: options.type }).orderBy('number', 'desc').limit(options.limit + 1);
    if (options.cursor !== undefined) {
      const cursor = readIdCursor('gen', options.cursor);
      query.andWhere(cursor.opaque ? 'row_id' : 'number', '<', cursor.id);
    }
    const rows = await query;
    const items = rows.slice(0, options.limit).map(generationFromRow);
    return { items, nextCursor: rows.length > options.limit ? items.at(-1)!.number : null };
  }

  async get(accountId: string, type: GenerationType, number: number): Promise<Generation | undefined> {
    if (!Number.isSafeInteger(number) || number <= 0) return undefined;
    const row = await this.db('generations').where({ account_id: accountId, type, number }).first();
    return row ? generationFromRow(row) : undefined;
  }
}
