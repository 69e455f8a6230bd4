// Making a batch of redemption codes (`gateway codes create`, POST /admin/v1/codes): the batch
// row, its codes (their hashes and hints only) and one audit row, in one transaction. The codes
// exist in full only in what this returns: the caller prints them once.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { formatRub, unitsToSql } from '../util/money.js';
import { newId } from '../util/ids.js';
import { codeHint, hashCode, newCode, normalizeCode } from './code-format.js';
import { batchFromRow, type CodeBatch, type CodeBatchRow } from './code-rows.js';

/** At most this many codes in one batch (one transaction, one CSV). */
export const maxCodesPerBatch = 10_000;
/** At most this many accounts per code. */
export const maxUsesPerCode = 1_000_000;
/** The longest note (it goes into the ledger row's description, which holds 500). */
export const maxNoteLength = 200;

export interface NewBatch {
  readonly amountUnits: bigint;
  readonly count: number;
  /** Accounts each code may credit, once each (default 1). */
  readonly usesPerCode?: number;
  readonly expiresAt: number | null;
  readonly note?: string | null;
  readonly actor: string;
  /** The creation time: the instant a relative expiry (30d) was computed from, so it is exact. */
  readonly at: number;
}

/** Rows per INSERT: 7 columns each stays far below SQLite's bound on variables per statement. */
const insertChunk = 100;

export async function createBatch(db: Knex, request: NewBatch): Promise<{ batch: CodeBatch; codes: string[] }> {
  const usesPerCode = request.usesPerCode ?? 1;
  // The surfaces (CLI flags, the admin API's schema) refuse these with their own words; this is the last guard.
  if (request.amountUnits <= 0n) throw new RangeError('the amount of a code must be positive');
  if (!Number.isInteger(request.count) || request.count < 1 || request.count > maxCodesPerBatch) throw new RangeError(`count must be 1 to ${maxCodesPerBatch}`);
  if (!Number.isInteger(usesPerCode) || usesPerCode < 1 || usesPerCode > maxUsesPerCode) throw new RangeError(`uses must be 1 to ${maxUsesPerCode}`);
  const note = request.note?.trim() || null;
  if (note !== null && note.length > maxNoteLength) throw new RangeError(`a note has at most ${maxNoteLength} characters`);

  const batchRow: CodeBatchRow = {
    id: newId('cbat'),
    amount_units: unitsToSql(request.amountUnits),
    uses_per_code: usesPerCode,
    count: request.count,
    expires_at: request.expiresAt,
    note,
    created_by: request.actor,
    created_at: request.at,
    disabled_at: null,
  };
  const codes = new Set<string>();
  while (codes.size < request.count) codes.add(newCode());
  const codeRows = [...codes].map((code) => {
    const normalized = normalizeCode(code)!;
    return { id: newId('code'), batch_id: batchRow.id, code_hash: hashCode(normalized), hint: codeHint(normalized), uses_left: usesPerCode, disabled_at: null, created_at: request.at };
  });
  await db.transaction(async (trx) => {
    await trx('code_batches').insert(batchRow);
    for (let start = 0; start < codeRows.length; start += insertChunk) await trx('redemption_codes').insert(codeRows.slice(start, start + insertChunk));
    await writeAudit(
      trx,
      {
        actor: request.actor,
        action: 'code_batch.create',
        target: batchRow.id,
        accountId: null,
        details: { amount_rub: formatRub(request.amountUnits), count: request.count, uses_per_code: usesPerCode, expires_at: request.expiresAt === null ? null : new Date(request.expiresAt).toISOString(), note },
      },
      request.at,
    );
  });
  return { batch: batchFromRow(batchRow), codes: [...codes] };
}
