// Reading batches and their codes for the operator (`gateway codes ls`, GET /admin/v1/codes):
// each with how often it was redeemed, never a code (only its hint).
import type { Knex } from 'knex';
import { CodeNotFoundError } from './code-errors.js';
import { batchFromRow, codeFromRow, type CodeBatch, type CodeBatchRow, type RedemptionCode, type RedemptionCodeRow } from './code-rows.js';

const batchColumns = (db: Knex) => ['b.*', db('code_redemptions as r').count('*').whereRaw('r.batch_id = b.id').as('redeemed')];

/** Every batch, newest first. */
export async function listBatches(db: Knex): Promise<CodeBatch[]> {
  const rows: CodeBatchRow[] = await db('code_batches as b')
    .select(batchColumns(db))
    .orderBy('b.created_at', 'desc')
    .orderBy('b.id', 'desc');
  return rows.map(batchFromRow);
}

/** One batch; CodeNotFoundError when there is none. */
export async function findBatch(db: Knex, batchId: string): Promise<CodeBatch> {
  const row: CodeBatchRow | undefined = await db('code_batches as b').select(batchColumns(db)).where('b.id', batchId).first();
  if (!row) throw new CodeNotFoundError(batchId);
  return batchFromRow(row);
}

/** The codes of a batch in the order they were made, each with its redemptions so far. */
export async function listCodes(db: Knex, batchId: string): Promise<RedemptionCode[]> {
  const rows: RedemptionCodeRow[] = await db('redemption_codes as c')
    .select('c.*', db('code_redemptions as r').count('*').whereRaw('r.code_id = c.id').as('redemptions'))
    .where('c.batch_id', batchId)
    .orderBy('c.created_at')
    .orderBy('c.id');
  return rows.map(codeFromRow);
}

/** One code; CodeNotFoundError when there is none. */
export async function findCode(db: Knex, codeId: string): Promise<RedemptionCode> {
  const row: RedemptionCodeRow | undefined = await db('redemption_codes as c')
    .select('c.*', db('code_redemptions as r').count('*').whereRaw('r.code_id = c.id').as('redemptions'))
    .where('c.id', codeId)
    .first();
  if (!row) throw new CodeNotFoundError(codeId);
  return codeFromRow(row);
}
